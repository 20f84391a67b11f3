import { EventEmitter } from "node:events";
import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import type { Browser } from "./browser.js";
import { TabSession, type DialogPolicy } from "./tab-session.js";

/** How the pool is bounded and how its sessions answer dialogs. */
export interface SessionPoolOptions {
  maxSessions: number;
  dialogPolicy: DialogPolicy;
}

const DETACH_TIMEOUT_MS = 1_000;

/**
 * One flattened CDP session per tab, attached on first use and reused by every later call; dropped when the tab
 * closes, crashes or detaches, re-attached when needed, and capped (the least recently used idle one goes first).
 * Every new page is attached as it appears, so nothing it logs before a caller arrives is lost.
 */
export class SessionPool extends EventEmitter<{ attached: [tab: TabSession] }> {
  #browser: Browser;
  #options: SessionPoolOptions;
  #sessions = new Map<string, Promise<TabSession>>();
  #ready = new Map<string, TabSession>();
  #attaches = 0;
  #terminations = 0;
  #attachSteps: ((tab: TabSession) => Promise<void>)[] = [];

  constructor(browser: Browser, options: SessionPoolOptions) {
    super();
    this.setMaxListeners(0);
    this.#browser = browser;
    this.#options = options;
    browser.on("pageDestroyed", (tabId) => this.#drop(tabId, new HubError("TARGET_CLOSED", `tab ${tabId} closed during the call`)));
    browser.on("pageCrashed", (tabId) => this.#drop(tabId, new HubError("TARGET_CLOSED", `tab ${tabId} crashed during the call`)));
    browser.on("sessionDetached", (sessionId) => {
      for (const tab of this.#ready.values()) {
        if (tab.cdp.id === sessionId) this.#drop(tab.tabId, new HubError("TARGET_CLOSED", `tab ${tab.tabId} was detached`));
      }
    });
    browser.on("pageCreated", (page) => this.#warm(page.tabId));
    browser.on("disconnected", () => {
      this.#sessions.clear();
      this.#ready.clear();
    });
  }

  /**
   * The tab's ready session, held until the call's budget is disposed; attached once, the attach shared by
   * concurrent callers, each bounded by its own budget.
   */
  async acquire(tabId: string, budget: Budget): Promise<TabSession> {
    for (;;) {
      const ready = this.#ready.get(tabId);
      if (ready && !ready.cdp.isClosed) return this.#holdFor(ready, budget);
      const tab = await budget.race(this.#attachOnce(tabId));
      // Another attach finishing in the same tick may have recycled it before this caller could hold it.
      if (!tab.cdp.isClosed) return this.#holdFor(tab, budget);
    }
  }

  /**
   * Adds what every new session of a tab runs before any call gets it (the tab's emulation set again, say); a step
   * that fails is logged, and the session is handed out all the same.
   */
  onAttach(step: (tab: TabSession) => Promise<void>): void {
    this.#attachSteps.push(step);
  }

  /** Counters: sessions attached since start, live now, and scripts stopped with terminateExecution since start. */
  stats(): { attaches: number; live: number; terminations: number } {
    return { attaches: this.#attaches, live: this.#ready.size, terminations: this.#terminations };
  }

  /** Detaches every session (graceful shutdown), each with a short deadline. */
  async detachAll(): Promise<void> {
    const tabs = [...this.#ready.values()];
    this.#ready.clear();
    this.#sessions.clear();
    if (!this.#browser.isUp) return;
    const connection = this.#browser.connection();
    await Promise.allSettled(
      tabs.map((tab) => connection.send("Target.detachFromTarget", { sessionId: tab.cdp.id }, { timeoutMs: DETACH_TIMEOUT_MS })),
    );
  }

  async #attach(tabId: string): Promise<TabSession> {
    try {
      const settings = {
        dialogPolicy: this.#options.dialogPolicy,
        onTerminate: () => this.#terminations++,
        onHung: (hung: string) => this.#browser.giveUpPage(hung, "its renderer is hung (terminateExecution was not answered)"),
      };
      const connection = this.#browser.connection();
      const tab = await TabSession.open(connection, tabId, settings);
      this.#attaches++;
      await Promise.all(
        this.#attachSteps.map((step) =>
          step(tab).catch((error: Error) => {
            // A tab closed while its session was set up (a /cdp client closing the page it just made) is no fault.
            const gone = tab.cdp.isClosed || this.#browser.page(tabId) === undefined;
            if (gone) log.debug("a step of a new tab session failed", { tabId, error: error.message });
            else log.warn("a step of a new tab session failed", { tabId, error: error.message });
          }),
        ),
      );
      if (!this.#sessions.has(tabId) || !this.#browser.page(tabId)) {
        // The tab closed (or Chrome went) while it was being attached: the session is of no use to anyone.
        const gone = new HubError("TARGET_CLOSED", `tab ${tabId} closed while the hub attached to it`);
        connection.dropSession(tab.cdp.id, gone);
        throw gone;
      }
      this.#ready.set(tabId, tab);
      this.#trim(tabId);
      this.emit("attached", tab);
      return tab;
    } catch (error) {
      this.#sessions.delete(tabId);
      if (error instanceof HubError && error.errorName !== "TIMEOUT") throw error;
      if (!this.#browser.page(tabId)) throw new HubError("TARGET_CLOSED", `tab ${tabId} closed before the hub could attach`);
      throw error;
    }
  }

  /** The attach of a tab in progress (or done), starting it when there is none: one per tab however many ask. */
  #attachOnce(tabId: string): Promise<TabSession> {
    let pending = this.#sessions.get(tabId);
    if (!pending) {
      pending = this.#attach(tabId);
      this.#sessions.set(tabId, pending);
    }
    return pending;
  }

  /** Attaches a new page at once (its console is collected from the start); failures are only logged. */
  #warm(tabId: string): void {
    if (this.#sessions.has(tabId) || this.#ready.size >= this.#options.maxSessions) return;
    this.#attachOnce(tabId).catch((error: Error) => log.debug("cannot attach a new page", { tabId, error: error.message }));
  }

  #holdFor(tab: TabSession, budget: Budget): TabSession {
    const release = tab.hold();
    budget.defer(() => {
      release();
      this.#trim(null);
    });
    return tab;
  }

  /** Detaches least recently used idle sessions (never `keep`) while more than maxSessions are live. */
  #trim(keep: string | null): void {
    while (this.#ready.size > this.#options.maxSessions) {
      const idle = [...this.#ready.values()]
        .filter((tab) => !tab.isBusy && tab.tabId !== keep)
        .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
      if (!idle) return;
      this.#evict(idle);
    }
  }

  #evict(idle: TabSession): void {
    log.info("session cap reached; detaching the least recently used", { tabId: idle.tabId });
    const sessionId = idle.cdp.id;
    this.#drop(idle.tabId, new HubError("TARGET_CLOSED", `the session of tab ${idle.tabId} was recycled`));
    if (this.#browser.isUp) {
      this.#browser
        .connection()
        .send("Target.detachFromTarget", { sessionId }, { timeoutMs: DETACH_TIMEOUT_MS })
        .catch(() => {});
    }
  }

  #drop(tabId: string, error: HubError): void {
    const tab = this.#ready.get(tabId);
    this.#ready.delete(tabId);
    this.#sessions.delete(tabId);
    if (tab && this.#browser.isUp) this.#browser.connection().dropSession(tab.cdp.id, error);
  }
}
