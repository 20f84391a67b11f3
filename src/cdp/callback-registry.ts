import { HubError } from "../errors.js";

/** How long an internal CDP command without a caller's budget may take. */
export const CDP_COMMAND_TIMEOUT_MS = 10_000;

/** What a command waits on: the caller's signal (its budget) or, without one, the default deadline. */
export interface CommandOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
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
  constructor(method: string, payload: ProtocolErrorPayload) {
    super(`${method}: ${payload.message}${payload.data ? ` (${payload.data})` : ""}`);
    this.name = "ProtocolError";
    this.method = method;
    this.protocolCode = payload.code;
  }
}

/** Pending CDP commands of one connection or session, each with a deadline and a typed failure. */
export class CallbackRegistry {
  #pending = new Map<number, Pending>();

  /** Registers command `id` and returns the promise of its result. */
  create(id: number, method: string, options: CommandOptions): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const entry: Pending = { method, resolve, reject, signal: options.signal, onAbort: () => {}, timer: undefined };
      entry.onAbort = () => this.#settle(id, entry, () => reject(options.signal?.reason as Error));
      if (options.signal) {
        if (options.signal.aborted) return reject(options.signal.reason as Error);
        options.signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      if (!options.signal || options.timeoutMs !== undefined) {
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
    entry.signal?.removeEventListener("abort", entry.onAbort);
    finish();
  }
}
