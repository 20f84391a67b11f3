import { HubError } from "../errors.js";

/** How long an internal CDP command without a caller's budget may take. */
export const CDP_COMMAND_TIMEOUT_MS = 10_000;

/** What ends a call without an AbortSignal of its own (a Budget): its reason once over, and a listener for that. */
export interface Deadline {
  readonly reason: Error | null;
  onEnd(listener: () => void): () => void;
  /** Milliseconds left before the deadline, where the deadline knows it. */
  remainingMs?(): number;
}

/** What a command waits on: the caller's budget or signal or, without either, the default deadline. */
export interface CommandOptions {
  /** The call's budget, when the command is bounded by it alone (cheaper than its signal). */
  budget?: Deadline;
  signal?: AbortSignal;
  timeoutMs?: number;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Stops waiting on the budget or signal. */
  unwatch: () => void;
  timer: NodeJS.Timeout | undefined;
}

/** The CDP error object as Chrome sends it. */
export interface ProtocolErrorPayload {
  code: number;
  message: string;
  data?: string;
}

/** Chrome answered a command with an error; callers map its message to a hub error. */
export class ProtocolError extends Error {
  readonly method: string;
  readonly protocolCode: number;
  /** Chrome's own message, as a CDP client would read it. */
  readonly protocolMessage: string;
  constructor(method: string, payload: ProtocolErrorPayload) {
    super(`${method}: ${payload.message}${payload.data ? ` (${payload.data})` : ""}`);
    this.name = "ProtocolError";
    this.method = method;
    this.protocolCode = payload.code;
    this.protocolMessage = payload.message;
  }
}

/** Pending CDP commands of one connection or session, each with a deadline and a typed failure. */
export class CallbackRegistry {
  #pending = new Map<number, Pending>();

  /** Registers command `id` and returns the promise of its result. */
  create(id: number, method: string, options: CommandOptions): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const { budget, signal } = options;
      const entry: Pending = { method, resolve, reject, unwatch: () => {}, timer: undefined };
      if (budget) {
        if (budget.reason) return reject(budget.reason);
        entry.unwatch = budget.onEnd(() => this.#settle(id, entry, () => reject(budget.reason as Error)));
      } else if (signal) {
        if (signal.aborted) return reject(signal.reason as Error);
        const onAbort = (): void => this.#settle(id, entry, () => reject(signal.reason as Error));
        signal.addEventListener("abort", onAbort, { once: true });
        entry.unwatch = () => signal.removeEventListener("abort", onAbort);
      }
      if ((!budget && !signal) || options.timeoutMs !== undefined) {
        const timeoutMs = options.timeoutMs ?? CDP_COMMAND_TIMEOUT_MS;
        entry.timer = setTimeout(() => {
          this.#settle(id, entry, () =>
            reject(new HubError("TIMEOUT", `Chrome did not answer ${method} within ${timeoutMs} ms`, { timeoutMs, terminated: false })),
          );
        }, timeoutMs);
      }
      this.#pending.set(id, entry);
    });
  }

  /** Delivers Chrome's answer to command `id`; late answers of abandoned commands are dropped. */
  settle(id: number, result: unknown, error: ProtocolErrorPayload | undefined): void {
    const entry = this.#pending.get(id);
    if (!entry) return;
    this.#settle(id, entry, () => (error ? entry.reject(new ProtocolError(entry.method, error)) : entry.resolve(result)));
  }

  /** Fails command `id` with the error `makeError` builds from its method; false when no such command waits. */
  fail(id: number, makeError: (method: string) => Error): boolean {
    const entry = this.#pending.get(id);
    if (!entry) return false;
    this.#settle(id, entry, () => entry.reject(makeError(entry.method)));
    return true;
  }

  /** Rejects every pending command, e.g. when the socket or session closes. */
  rejectAll(makeError: (method: string) => Error): void {
    for (const [id, entry] of this.#pending) this.#settle(id, entry, () => entry.reject(makeError(entry.method)));
  }

  /** How many commands wait for an answer. */
  get size(): number {
    return this.#pending.size;
  }

  #settle(id: number, entry: Pending, finish: () => void): void {
    if (this.#pending.get(id) !== entry) return;
    this.#pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.unwatch();
    finish();
  }
}
