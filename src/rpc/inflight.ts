import type { JsonRpcId } from "./envelope.js";

/** The requests of one connection that are still running, by id, each cancellable. */
export class InflightTable {
  #byId = new Map<JsonRpcId, AbortController>();
  #anonymous = new Set<AbortController>();

  /** How many requests and notifications are running. */
  get size(): number {
    return this.#byId.size + this.#anonymous.size;
  }

  /** Whether a request with this id is running. */
  has(id: JsonRpcId): boolean {
    return this.#byId.has(id);
  }

  /** Registers a running request (or, with no id, a notification); returns the controller and the disposer. */
  add(id: JsonRpcId | undefined): { controller: AbortController; done: () => void } {
    const controller = new AbortController();
    if (id === undefined) {
      this.#anonymous.add(controller);
      return { controller, done: () => this.#anonymous.delete(controller) };
    }
    this.#byId.set(id, controller);
    return {
      controller,
      done: () => {
        if (this.#byId.get(id) === controller) this.#byId.delete(id);
      },
    };
  }

  /** Cancels one running request; false when none with that id runs. */
  cancel(id: JsonRpcId, reason: Error): boolean {
    const controller = this.#byId.get(id);
    if (!controller) return false;
    controller.abort(reason);
    return true;
  }

  /** Cancels everything, e.g. when the connection closes. */
  cancelAll(reason: Error): void {
    for (const controller of [...this.#byId.values(), ...this.#anonymous]) controller.abort(reason);
  }
}
