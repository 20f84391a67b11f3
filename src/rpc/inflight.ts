import type { JsonRpcId } from "./envelope.js";

/** What a running call gives the table so that it can be cancelled (a call's Budget). */
export interface Cancellable {
  cancel(reason: Error): void;
}

/** The requests of one connection that are still running, by id, each cancellable. */
export class InflightTable {
  #byId = new Map<JsonRpcId, Cancellable>();
  #anonymous = new Set<Cancellable>();

  /** How many requests and notifications are running. */
  get size(): number {
    return this.#byId.size + this.#anonymous.size;
  }

  /** Whether a request with this id is running. */
  has(id: JsonRpcId): boolean {
    return this.#byId.has(id);
  }

  /** Registers a running request (or, with no id, a notification); returns the disposer. */
  add(id: JsonRpcId | undefined, call: Cancellable): () => void {
    if (id === undefined) {
      this.#anonymous.add(call);
      return () => this.#anonymous.delete(call);
    }
    this.#byId.set(id, call);
    return () => {
      if (this.#byId.get(id) === call) this.#byId.delete(id);
    };
  }

  /** Cancels one running request; false when none with that id runs. */
  cancel(id: JsonRpcId, reason: Error): boolean {
    const call = this.#byId.get(id);
    if (!call) return false;
    call.cancel(reason);
    return true;
  }

  /** Cancels everything, e.g. when the connection closes. */
  cancelAll(reason: Error): void {
    for (const call of [...this.#byId.values(), ...this.#anonymous]) call.cancel(reason);
  }
}
