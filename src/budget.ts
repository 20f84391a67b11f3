import { HubError } from "./errors.js";

/**
 * The time a call may take, end to end: a deadline, what is left of it, and a signal that fires at it or on cancel.
 * The connection's table of running calls cancels it directly (one AbortController per call, no listener on a
 * parent signal: they are a measurable part of a short call's cost).
 */
export class Budget {
  readonly timeoutMs: number;
  readonly deadline: number;
  readonly signal: AbortSignal;
  #controller = new AbortController();
  #timer: NodeJS.Timeout;
  #deferred: (() => void)[] = [];
  #onEnd: (() => void) | null = null;
  #disposed = false;

  /** Starts a budget of `timeoutMs`. */
  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.deadline = Date.now() + timeoutMs;
    this.signal = this.#controller.signal;
    this.#timer = setTimeout(() => {
      this.#end(new HubError("TIMEOUT", `timed out after ${timeoutMs} ms`, { timeoutMs, terminated: false }));
    }, timeoutMs);
  }

  /** Ends the budget early (the caller cancelled, or its connection went): the signal fires with `reason`. */
  cancel(reason: Error): void {
    this.#end(reason);
  }

  /** Runs `listener` once when the budget ends by deadline or cancel, unless disposed first (one listener: the router's). */
  onEnd(listener: () => void): void {
    if (this.#disposed) return;
    if (this.signal.aborted) listener();
    else this.#onEnd = listener;
  }

  /** Milliseconds left before the deadline (never negative). */
  remainingMs(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  /** Whether the deadline has passed or the call was cancelled. */
  get isOver(): boolean {
    return this.signal.aborted;
  }

  /** Whether the budget ended because its time ran out (as opposed to a cancel). */
  get isTimedOut(): boolean {
    const reason: unknown = this.signal.reason;
    return reason instanceof HubError && reason.errorName === "TIMEOUT";
  }

  /** Resolves or rejects like `promise`, or rejects with the budget's reason when it ends first. */
  race<T>(promise: Promise<T>): Promise<T> {
    return raceSignal(promise, this.signal);
  }

  /** Runs `release` when the call is answered (at once if it already was): what the call holds lives as long as it. */
  defer(release: () => void): void {
    if (this.#disposed) release();
    else this.#deferred.push(release);
  }

  /** Stops the timer and runs what was deferred; call when the call is answered. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#onEnd = null;
    for (const release of this.#deferred.splice(0)) release();
  }

  #end(reason: Error): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(reason);
    const listener = this.#onEnd;
    this.#onEnd = null;
    listener?.();
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
