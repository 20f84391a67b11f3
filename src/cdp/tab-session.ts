import type { Protocol } from "devtools-protocol";
import { HubError, isHubError } from "../errors.js";
import type { Budget } from "../budget.js";
import { log } from "../log.js";
import { CDP_COMMAND_TIMEOUT_MS, type CommandOptions } from "./callback-registry.js";
import { protocolFailureOf } from "./protocol-errors.js";
import { isHeldWhileLoading, PendingLoads, type PendingLoad, type TabCommandOptions } from "./pending-load.js";
import type { CdpConnection, CommandName, CommandParams, CommandResult, EventName, EventParams } from "./connection.js";
import type { CdpSession } from "./session.js";

// Chrome attaches the next document within milliseconds of refusing a command: how often it is tried again meanwhile.
const NOT_ATTACHED_RETRY_MS = 50;

/** How the hub answers JavaScript dialogs so that no call hangs on one. */
export type DialogPolicy = "accept" | "dismiss" | "manual";

/** What a call running page code hears of its tab while it runs (TabSession.watchCall). */
export interface CallWatcher {
  /** The main frame navigated: the document the call ran in is gone. */
  navigated(): void;
  /** The page logged to the console. */
  console?(event: Protocol.Runtime.ConsoleAPICalledEvent): void;
}

/** How a tab's session behaves: its dialog policy, and whom to tell when it stops a script. */
export interface TabSettings {
  dialogPolicy: DialogPolicy;
  onTerminate?: () => void;
  /** The page did not answer a terminateExecution in time: its renderer is hung (e.g. a script spinning through a reload). */
  onHung?: (tabId: string) => void;
}

/**
 * A tab's pooled CDP session with its domains enabled once: dialogs answered by policy, main-frame navigations
 * announced, and held by the calls using it so that the pool never recycles it under them.
 */
export class TabSession {
  readonly tabId: string;
  readonly cdp: CdpSession;
  /** The browser-level connection the session is flattened on (cross-site iframes are attached through it). */
  readonly connection: CdpConnection;
  lastUsedAt = Date.now();
  #holds = 0;
  #terminating: Promise<void> | null = null;
  #terminations = 0;
  #settings: TabSettings;
  #navigationListeners = new Set<() => void>();
  // One set per tab rather than an emitter listener and a navigation listener per call: cheaper on the hot path.
  #callWatchers = new Set<CallWatcher>();
  /** The lifecycle events of the main frame's current document; unknown until one began under this session. */
  #lifecycle = new Set<string>();
  #lifecycleKnown = false;
  /** The dialog left open under DIALOG_POLICY=manual, until it closes. */
  #openDialog: Protocol.Page.JavascriptDialogOpeningEvent | null = null;
  #loads = new PendingLoads();

  private constructor(cdp: CdpSession, connection: CdpConnection, settings: TabSettings) {
    this.cdp = cdp;
    this.connection = connection;
    this.tabId = cdp.targetId;
    this.#settings = settings;
    cdp.on("Page.javascriptDialogOpening", (event) => {
      if (settings.dialogPolicy === "manual") this.#openDialog = event;
      else void this.#answerDialog(event, settings.dialogPolicy);
    });
    cdp.on("Page.javascriptDialogClosed", () => (this.#openDialog = null));
    cdp.on("Page.frameNavigated", (event) => {
      if (event.frame.parentId !== undefined) return;
      this.#loads.ended();
      this.#onNavigated();
    });
    cdp.on("Page.frameStartedNavigating", (event) => {
      const sameDocument = event.navigationType === "sameDocument" || event.navigationType === "historySameDocument";
      if (event.frameId === this.tabId && !sameDocument) this.#loads.started(event.url, event.loaderId);
    });
    cdp.on("Page.frameStoppedLoading", (event) => void (event.frameId === this.tabId && this.#loads.ended()));
    // The document's request has the navigation's loader as its id (Network is enabled on every tab: network-log.ts).
    cdp.on("Network.requestWillBeSent", (event) => void (event.type === "Document" && this.#loads.requested(event.requestId, true)));
    cdp.on("Network.responseReceived", (event) => void (event.type === "Document" && this.#loads.requested(event.requestId, false)));
    cdp.on("Network.loadingFailed", (event) => void (event.type === "Document" && this.#loads.requested(event.requestId, false)));
    cdp.on("Runtime.executionContextsCleared", () => this.#onNavigated());
    cdp.on("Page.lifecycleEvent", (event) => {
      if (event.frameId !== this.tabId) return;
      if (event.name === "init") {
        this.#lifecycle.clear();
        this.#lifecycleKnown = true;
      }
      this.#lifecycle.add(event.name);
    });
    cdp.on("Runtime.consoleAPICalled", (event) => {
      for (const watcher of this.#callWatchers) watcher.console?.(event);
    });
    cdp.on("closed", () => {
      this.#loads.ended();
      this.#navigationListeners.clear();
      this.#callWatchers.clear();
    });
  }

  /** Attaches a flattened session to `tabId` and enables the domains every call relies on, each command within CDP_COMMAND_TIMEOUT_MS. */
  static async open(connection: CdpConnection, tabId: string, settings: TabSettings): Promise<TabSession> {
    const options = { timeoutMs: CDP_COMMAND_TIMEOUT_MS };
    const { sessionId } = await connection.send("Target.attachToTarget", { targetId: tabId, flatten: true }, options);
    const tab = new TabSession(connection.createSession(sessionId, tabId), connection, settings);
    try {
      await Promise.all([
        tab.send("Runtime.enable", undefined, options),
        tab.send("Page.enable", undefined, options),
        tab.send("Page.setLifecycleEventsEnabled", { enabled: true }, options),
        tab.send("Log.enable", undefined, options),
      ]);
    } catch (error) {
      // A session that never became usable is not left behind (the tab closed or crashed while it was set up).
      connection.dropSession(
        sessionId,
        error instanceof HubError ? error : new HubError("TARGET_CLOSED", `tab ${tabId} went while it was attached`),
      );
      throw error;
    }
    return tab;
  }

  /**
   * Sends a command on the tab's session. One that Chrome would hold while the main frame waits for a server to send
   * its next page is not sent then: it waits for the answer (see PendingLoads.untilAnswered), or fails with PAGE_LOADING.
   */
  send<M extends CommandName>(method: M, params?: CommandParams<M>, options?: TabCommandOptions): Promise<CommandResult<M>> {
    this.lastUsedAt = Date.now();
    if (!this.#loads.awaitingServer || !isHeldWhileLoading(method)) return this.cdp.send(method, params, options);
    return this.#sendOnceLoaded(method, params, options ?? {});
  }

  /**
   * Sends a command as send does, again every 50 ms while Chrome refuses it because the tab's frame is between two
   * documents (a navigation committing in another process), until the budget ends.
   */
  async sendWhenAttached<M extends CommandName>(
    method: M,
    params: CommandParams<M> | undefined,
    budget: Budget,
  ): Promise<CommandResult<M>> {
    for (;;) {
      try {
        return await this.send(method, params, { budget });
      } catch (error) {
        if (protocolFailureOf(error) !== "not-attached" || this.cdp.closedBy) throw error;
      }
      await budget.race(new Promise((resolve) => setTimeout(resolve, NOT_ATTACHED_RETRY_MS).unref()));
    }
  }

  /** The main frame's navigation that has started and not committed yet, if this session saw one start. */
  get pendingLoad(): PendingLoad | null {
    return this.#loads.current;
  }

  /** How the tab's dialogs are answered (DIALOG_POLICY). */
  get dialogPolicy(): DialogPolicy {
    return this.#settings.dialogPolicy;
  }

  /** The dialog open on the tab under DIALOG_POLICY=manual, if any. */
  get openDialog(): Protocol.Page.JavascriptDialogOpeningEvent | null {
    return this.#openDialog;
  }

  /** How many times the hub stopped this tab's script (a call failing after one may have been what it stopped). */
  get terminations(): number {
    return this.#terminations;
  }

  /**
   * Stops the script running on the page's main thread (Runtime.terminateExecution), counted for /metrics; calls
   * cancelled together share one command, since one stops the script they all wait on.
   */
  terminateExecution(options: CommandOptions): Promise<void> {
    if (this.#terminating) return this.#terminating;
    this.#terminations++;
    this.#settings.onTerminate?.();
    const terminating = this.send("Runtime.terminateExecution", undefined, options).then(
      () => {
        this.#terminating = null;
      },
      (error: Error) => {
        this.#terminating = null;
        log.warn("terminateExecution was not answered", { tabId: this.tabId, error: error.message });
        if (isHubError(error, "TIMEOUT") && !this.cdp.isClosed) this.#settings.onHung?.(this.tabId);
      },
    );
    this.#terminating = terminating;
    return terminating;
  }

  /** Subscribes to a typed event of this tab; returns the disposer. */
  listen<E extends EventName>(event: E, listener: (params: EventParams<E>) => void): () => void {
    return this.cdp.listen(event, listener);
  }

  /** Whether a call holds the session (the pool never recycles a held one). */
  get isBusy(): boolean {
    return this.#holds > 0;
  }

  /** Holds the session for a call until the returned function is called. */
  hold(): () => void {
    this.#holds++;
    this.lastUsedAt = Date.now();
    let released = false;
    return () => {
      if (!released) this.#holds--;
      released = true;
    };
  }

  /** Calls `listener` when the main frame navigates (a new document replaces the one calls ran in); returns the disposer. */
  onNavigated(listener: () => void): () => void {
    // A wrapper of its own, so that the same listener given twice is two listeners.
    const each = (): void => listener();
    this.#navigationListeners.add(each);
    return () => this.#navigationListeners.delete(each);
  }

  /**
   * Resolves once the main frame's document has reached a lifecycle event (`DOMContentLoaded`, `load`,
   * `networkIdle`...); while a load is pending, the next document's event (or the old one's, if the load ends without
   * a document). For a document that began before this session was attached, its readyState stands in: complete
   * counts as every event, interactive as DOMContentLoaded.
   */
  lifecycleReached(name: string, budget: Budget): Promise<void> {
    if (this.#lifecycle.has(name) && this.#loads.current === null) return Promise.resolve();
    return new Promise((resolve) => {
      const stops = [
        this.listen("Page.lifecycleEvent", (event) => {
          const pending = this.#loads.current;
          if (event.frameId !== this.tabId || event.name !== name || (pending && event.loaderId !== pending.loaderId)) return;
          done();
        }),
        // A pending load ended: in a document that has reached the event already, or without one (the old one stays).
        this.listen("Page.frameStoppedLoading", (event) => void (event.frameId === this.tabId && this.#lifecycle.has(name) && done())),
      ];
      function done(): void {
        for (const stop of stops) stop();
        resolve();
      }
      budget.defer(() => stops.forEach((stop) => stop()));
      if (this.#lifecycleKnown) return;
      this.send("Runtime.evaluate", { expression: "document.readyState", returnByValue: true }, { budget }).then(
        ({ result }) => {
          if (result.value === "complete" || (result.value === "interactive" && name === "DOMContentLoaded")) resolve();
        },
        () => {},
      );
    });
  }

  /** Tells `watcher` of navigations and console messages until the returned function is called. */
  watchCall(watcher: CallWatcher): () => void {
    this.#callWatchers.add(watcher);
    return () => this.#callWatchers.delete(watcher);
  }

  /**
   * Resolves once the main frame waits for no server to send its next page, at once when it does not; past
   * `loadingWaitMs` (default LOADING_WAIT_MS) and within the deadline of `options`, PAGE_LOADING.
   */
  untilLoaded(options: TabCommandOptions): Promise<void> {
    if (!this.#loads.awaitingServer) return Promise.resolve();
    const probe = (timeoutMs: number): Promise<unknown> =>
      this.cdp.send("Runtime.evaluate", { expression: "0", returnByValue: true }, { timeoutMs });
    return this.#loads.untilAnswered(probe, options);
  }

  async #sendOnceLoaded<M extends CommandName>(
    method: M,
    params: CommandParams<M> | undefined,
    options: TabCommandOptions,
  ): Promise<CommandResult<M>> {
    await this.untilLoaded(options);
    return this.cdp.send(method, params, options);
  }

  #onNavigated(): void {
    for (const listener of [...this.#navigationListeners]) listener();
    for (const watcher of [...this.#callWatchers]) watcher.navigated();
  }

  async #answerDialog(event: Protocol.Page.JavascriptDialogOpeningEvent, policy: "accept" | "dismiss"): Promise<void> {
    try {
      await this.send("Page.handleJavaScriptDialog", { accept: policy === "accept" });
      log.info("answered a dialog", { tabId: this.tabId, type: event.type, accept: policy === "accept" });
    } catch (error) {
      log.warn("cannot answer a dialog", { tabId: this.tabId, error: (error as Error).message });
    }
  }
}
