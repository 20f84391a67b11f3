import type { TabSession } from "../cdp/tab-session.js";
import { isHubError } from "../errors.js";
import { protocolFailureOf } from "../cdp/protocol-errors.js";

const PROBE_TIMEOUT_MS = 100;
// A terminateExecution not answered by then means the renderer is hung; the pool then gives the tab up.
const TERMINATE_TIMEOUT_MS = 5_000;
// Each round is a probe (at most PROBE_TIMEOUT_MS when the page is busy) and maybe a terminate: about 10 s in all.
const MAX_ROUNDS = 100;

interface Waiter {
  ticket: number;
  resolve: (stopped: boolean) => void;
}

const watches = new WeakMap<TabSession, RunawayWatch>();

/**
 * Stops the page's script if an abandoned call (past its budget, or cancelled) left one spinning; resolves with
 * whether the page was busy and was stopped. See RunawayWatch.
 */
export function stopRunaway(tab: TabSession): Promise<boolean> {
  let watch = watches.get(tab);
  if (!watch) watches.set(tab, (watch = new RunawayWatch(tab)));
  return watch.request();
}

/**
 * Watches one tab for scripts of abandoned calls. A trivial probe that does not answer quickly means the main thread
 * is busy, and only then is Runtime.terminateExecution sent (when nothing runs it would kill the page's next script).
 * Chrome runs a tab's commands in order, so an abandoned call's script may still be queued behind another one when
 * it is abandoned, and start spinning only after that one is stopped: the watch probes again after each stop, until
 * a probe sent after the last abandoned call answers (everything before it has finished or is only awaiting).
 */
class RunawayWatch {
  #tab: TabSession;
  #requests = 0;
  #waiters: Waiter[] = [];
  #running = false;

  constructor(tab: TabSession) {
    this.#tab = tab;
  }

  request(): Promise<boolean> {
    const ticket = ++this.#requests;
    const stopped = new Promise<boolean>((resolve) => this.#waiters.push({ ticket, resolve }));
    if (!this.#running) void this.#run();
    return stopped;
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      for (let round = 0; round < MAX_ROUNDS && !this.#tab.cdp.isClosed; round++) {
        const covers = this.#requests;
        const state = await this.#probe();
        if (state === "between-documents") {
          // A navigation is committing: what is queued behind it can only be judged in the new document.
          await new Promise((resolve) => setTimeout(resolve, PROBE_TIMEOUT_MS));
          continue;
        }
        if (state === "busy") void this.#tab.terminateExecution({ timeoutMs: TERMINATE_TIMEOUT_MS });
        this.#answer((waiter) => waiter.ticket <= covers, state === "busy");
        if (state === "idle" && covers === this.#requests) return;
      }
    } finally {
      this.#running = false;
      this.#answer(() => true, false);
    }
  }

  /** Idle when the page answers a trivial evaluate in time, busy when it does not, between documents while it navigates. */
  async #probe(): Promise<"idle" | "busy" | "between-documents"> {
    try {
      await this.#tab.send("Runtime.evaluate", { expression: "0", returnByValue: true }, { timeoutMs: PROBE_TIMEOUT_MS });
      return "idle";
    } catch (error) {
      if (isHubError(error, "TIMEOUT")) return "busy";
      const failure = protocolFailureOf(error);
      return failure === "context-gone" || failure === "not-attached" ? "between-documents" : "idle";
    }
  }

  #answer(which: (waiter: Waiter) => boolean, stopped: boolean): void {
    const answered = this.#waiters.filter(which);
    this.#waiters = this.#waiters.filter((waiter) => !which(waiter));
    for (const waiter of answered) waiter.resolve(stopped);
  }
}
