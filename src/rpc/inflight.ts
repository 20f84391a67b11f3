import type { JsonRpcId } from "./envelope.js";

/** What a running call gives the table so that it can be cancelled (a call's Budget). */
export interface Cancellable {
  cancel(reason: Error): void;
}

/** The requests of one connection that are still running, by id, each cancellable. */
export class InflightTable {
  // Requests by their id, notifications by themselves (no id can equal an object). Made at the first call: a
  // thousand idle connections hold no tables.
  #calls: Map<JsonRpcId | Cancellable, Cancellable> | null = null;

  /** How many requests and notifications are running. */
  get size(): number {
    return this.#calls?.size ?? 0;
  }

  /** Whether a request with this id is running. */
  has(id: JsonRpcId): boolean {
    return this.#calls?.has(id) ?? false;
  }

  /** Registers a running request (or, with no id, a notification); returns the disposer. */
  add(id: JsonRpcId | undefined, call: Cancellable): () => void {
    const calls = (this.#calls ??= new Map());
    const key = id === undefined ? call : id;
    calls.set(key, call);
    return () => {
      if (calls.get(key) === call) calls.delete(key);
    };
  }

  /** Cancels one running request; false when none with that id runs. */
  cancel(id: JsonRpcId, reason: Error): boolean {
    const call = this.#calls?.get(id);
    if (!call) return false;
    call.cancel(reason);
    return true;
  }

  /** The ids of the running requests (notifications have none). */
  ids(): JsonRpcId[] {
    return [...(this.#calls?.keys() ?? [])].filter((key): key is JsonRpcId => typeof key !== "object" || key === null);
  }

  /** Cancels everything, e.g. when the connection closes. */
  cancelAll(reason: Error): void {
    for (const call of [...(this.#calls?.values() ?? [])]) call.cancel(reason);
  }
}
