import { HubError, isHubError } from "../errors.js";
import { CDP_COMMAND_TIMEOUT_MS, type CommandOptions } from "./callback-registry.js";

/** A navigation of a tab's main frame that has started and not committed yet (its server has not answered, say). */
export interface PendingLoad {
  url: string;
  /** Chrome's loader of the document it will commit (and the id of the document's request). */
  loaderId: string;
  /** Its document's request is sent and unanswered: the server decides when, or whether, the page arrives. */
  awaitingServer: boolean;
  /** When it started, in ms since the epoch. */
  startedAt: number;
}

/** A command's options on a tab: its deadline, and how long it may wait for the tab's pending navigation. */
export interface TabCommandOptions extends CommandOptions {
  /** How long a command Chrome holds while the tab loads waits for the load to commit (default LOADING_WAIT_MS). */
  loadingWaitMs?: number;
}

/** How long a page command waits for a pending navigation to commit before it answers PAGE_LOADING. */
export const LOADING_WAIT_MS = 2_000;
// The answer comes this long before the command's deadline, so that the caller reads PAGE_LOADING, not a bare TIMEOUT.
const ANSWER_MARGIN_MS = 100;
// A trivial evaluate not answered within this confirms that Chrome holds the page's commands.
const PROBE_TIMEOUT_MS = 150;
const MESSAGE_URL_CHARS = 300;

// From a main-frame navigation's start to its commit (or its end without one) Chrome holds every command for the page's
// renderer, on every session of the tab, and sends it on in the next document. Checked on Chromium 156: these domains
// are held but for the commands below; other domains (Target, Input, Fetch, Browser, Storage) are answered meanwhile.
const HELD_DOMAINS = new Set([
  "Runtime",
  "DOM",
  "DOMSnapshot",
  "DOMStorage",
  "Accessibility",
  "CSS",
  "Overlay",
  "Log",
  "Emulation",
  "Network",
]);
const ANSWERED_COMMANDS = new Set([
  "Runtime.terminateExecution",
  "Emulation.setGeolocationOverride",
  "Emulation.clearGeolocationOverride",
  "Emulation.clearDeviceMetricsOverride",
]);
// The Page commands the browser process answers itself; Chrome holds the others (getFrameTree, createIsolatedWorld...).
const ANSWERED_PAGE_COMMANDS = new Set([
  "Page.navigate",
  "Page.reload",
  "Page.stopLoading",
  "Page.navigateToHistoryEntry",
  "Page.getNavigationHistory",
  "Page.resetNavigationHistory",
  "Page.captureScreenshot",
  "Page.printToPDF",
  "Page.handleJavaScriptDialog",
  "Page.startScreencast",
  "Page.stopScreencast",
  "Page.screencastFrameAck",
  "Page.bringToFront",
  "Page.setDownloadBehavior",
  "Page.close",
]);

/** Whether Chrome holds `method` while the tab's main frame waits for a navigation to commit. */
export function isHeldWhileLoading(method: string): boolean {
  if (ANSWERED_COMMANDS.has(method)) return false;
  const domain = method.slice(0, method.indexOf("."));
  if (domain === "Page") return !ANSWERED_PAGE_COMMANDS.has(method);
  return HELD_DOMAINS.has(domain);
}

/**
 * The main frame's pending navigation, as the tab's events tell it, and a wait for the page to arrive. Calls are held
 * back only while its document's request waits for the server: a page that needs none (about:blank), or whose server
 * has answered, commits as soon as its renderer can, and a renderer that cannot (a script spinning through a reload)
 * is found hung by the calls that time out on it (see runaway-watch.ts).
 */
export class PendingLoads {
  #current: PendingLoad | null = null;
  #waiters = new Set<() => void>();

  /** The pending navigation, or null when none is (or none began under this session). */
  get current(): PendingLoad | null {
    return this.#current;
  }

  /** Whether the tab waits for a server to send its next page (so Chrome holds its page's commands until it does). */
  get awaitingServer(): boolean {
    return this.#current?.awaitingServer === true;
  }

  /** A main-frame navigation to another document started. */
  started(url: string, loaderId: string): void {
    this.#current = { url, loaderId, startedAt: Date.now(), awaitingServer: false };
  }

  /** The request of the document `loaderId` was sent (true), or answered or failed (false). */
  requested(loaderId: string, awaiting: boolean): void {
    const load = this.#current;
    if (load?.loaderId !== loaderId || load.awaitingServer === awaiting) return;
    load.awaitingServer = awaiting;
    if (!awaiting) this.#wake();
  }

  /** The main frame committed a document, or stopped loading without one (stopped, failed, a download, a 204). */
  ended(): void {
    this.#current = null;
    this.#wake();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /**
   * Waits for the server of the pending navigation to answer (or the navigation to end), at most `loadingWaitMs` and
   * within the command's deadline; a tab still waiting then is PAGE_LOADING, once `probe` (a trivial page command, answered at once unless Chrome holds it) confirms that Chrome holds the page's commands:
   * events the hub did not see (a session attached late) never leave a tab refusing calls.
   */
  async untilAnswered(probe: (timeoutMs: number) => Promise<unknown>, options: TabCommandOptions): Promise<void> {
    const waitMs = Math.min(options.loadingWaitMs ?? LOADING_WAIT_MS, remainingMs(options) - ANSWER_MARGIN_MS - PROBE_TIMEOUT_MS);
    if (await this.#answered(Math.max(0, waitMs), options)) return;
    const load = this.#current;
    if (!load) return;
    try {
      await probe(PROBE_TIMEOUT_MS);
    } catch (error) {
      if (isHubError(error, "TIMEOUT") && this.#current === load && load.awaitingServer) throw pageLoading(load);
      return;
    }
    if (this.#current === load) this.ended();
  }

  #answered(waitMs: number, options: CommandOptions): Promise<boolean> {
    if (!this.awaitingServer) return Promise.resolve(true);
    const { budget, signal } = options;
    return new Promise<boolean>((resolve, reject) => {
      const stops: (() => void)[] = [];
      const finish = (settle: () => void): void => {
        for (const stop of stops) stop();
        settle();
      };
      const onEnded = (): void => void (!this.awaitingServer && finish(() => resolve(true)));
      this.#waiters.add(onEnded);
      stops.push(() => this.#waiters.delete(onEnded));
      const timer = setTimeout(() => finish(() => resolve(false)), waitMs);
      stops.push(() => clearTimeout(timer));
      if (budget) stops.push(budget.onEnd(() => finish(() => reject(budget.reason as Error))));
      if (signal) {
        const onAbort = (): void => finish(() => reject(signal.reason as Error));
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        stops.push(() => signal.removeEventListener("abort", onAbort));
      }
    });
  }
}

/** What is left of a command's deadline: its budget's, its timeoutMs, else the default CDP deadline. */
function remainingMs(options: CommandOptions): number {
  const fromBudget = options.budget?.remainingMs?.() ?? Number.POSITIVE_INFINITY;
  const bounded = options.budget !== undefined || options.signal !== undefined;
  return Math.min(fromBudget, options.timeoutMs ?? (bounded ? Number.POSITIVE_INFINITY : CDP_COMMAND_TIMEOUT_MS));
}

/** PAGE_LOADING for a call that needs the page while the tab waits for `load`: which URL, since when, and what to do. */
export function pageLoading(load: PendingLoad): HubError {
  const loadingMs = Date.now() - load.startedAt;
  return new HubError(
    "PAGE_LOADING",
    `the tab is still loading ${shortUrl(load.url)} (for ${(loadingMs / 1000).toFixed(1)} s), and Chrome runs nothing in its page until that page arrives: call again once it has, navigate elsewhere, go back, or stop the load (tabs.stop)`,
    { url: load.url, loadingMs },
  );
}

/** A URL cut for a message (the whole one goes in the error's data). */
export function shortUrl(url: string): string {
  return url.length <= MESSAGE_URL_CHARS ? url : `${url.slice(0, MESSAGE_URL_CHARS)}…`;
}
