import { DeadlineQueue, type QueuedDeadline } from "./deadline-queue.js";
import { HubError } from "./errors.js";

/** The deadlines of every budget, on one timer (a Node timer per call is a measurable part of a short call's cost). */
export const budgetDeadlines = new DeadlineQueue();

/**
 * The time a call may take, end to end: a deadline, what is left of it, and listeners told when it ends (deadline
 * or cancel). The connection's table of running calls cancels it directly. CDP commands (`{ budget }`), agent calls
 * and forwarded calls wait on `onEnd`; its AbortSignal is made only for what takes a signal (a page read that also
 * ends on navigation, closing a tab), since an AbortController and its listeners are a measurable part of a short
 * call's cost.
 */
export class Budget {
  readonly timeoutMs: number;
  readonly deadline: number;
  #reason: Error | null = null;
  #controller: AbortController | null = null;
  #timer: QueuedDeadline;
  #listeners: (() => void)[] = [];
  #deferred: (() => void)[] = [];
  #disposed = false;

  /** Starts a budget of `timeoutMs`. */
  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.deadline = Date.now() + timeoutMs;
    this.#timer = budgetDeadlines.add(timeoutMs, () => {
      this.#end(new HubError("TIMEOUT", `timed out after ${timeoutMs} ms`, { timeoutMs, terminated: false }));
    });
  }

  /** A signal that fires when the budget ends, with the reason (made on first use). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Why the budget ended (TIMEOUT or the cancel's reason), or null while it runs. */
  get reason(): Error | null {
    return this.#reason;
  }

  /** Ends the budget early (the caller cancelled, or its connection went): listeners and the signal get `reason`. */
  cancel(reason: Error): void {
    this.#end(reason);
  }

  /**
   * Calls `listener` once when the budget ends (at once if it has), unless it is disposed or the returned function
   * is called first.
   */
  onEnd(listener: () => void): () => void {
    if (this.#reason) {
      listener();
      return () => {};
    }
    if (this.#disposed) return () => {};
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index !== -1) this.#listeners.splice(index, 1);
    };
  }

  /** Milliseconds left before the deadline (never negative). */
  remainingMs(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  /** Whether the deadline has passed or the call was cancelled. */
  get isOver(): boolean {
    return this.#reason !== null;
  }

  /** Whether the budget ended because its time ran out (as opposed to a cancel). */
  get isTimedOut(): boolean {
    return this.#reason instanceof HubError && this.#reason.errorName === "TIMEOUT";
  }

  /** Resolves or rejects like `promise`, or rejects with the budget's reason when it ends first. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.#reason) return Promise.reject(this.#reason);
    return new Promise<T>((resolve, reject) => {
      const stop = this.onEnd(() => reject(this.#reason as Error));
      promise.then(
        (value) => {
          stop();
          resolve(value);
        },
        (error: unknown) => {
          stop();
          reject(error as Error);
        },
      );
    });
  }

  /** Runs `release` when the call is answered (at once if it already was): what the call holds lives as long as it. */
  defer(release: () => void): void {
    if (this.#disposed) release();
    else this.#deferred.push(release);
  }

  /** Stops the timer, forgets the listeners and runs what was deferred; call when the call is answered. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    budgetDeadlines.remove(this.#timer);
    this.#listeners = [];
    for (const release of this.#deferred.splice(0)) release();
  }

  #end(reason: Error): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** Resolves or rejects like `promise`, or rejects with the signal's reason when it aborts first. */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error as Error);
      },
    );
  });
}
