import { EventEmitter } from "node:events";

/** What ClientUsers tells: a client's last connection closed (the time from which it may be abandoned). */
export interface ClientUsersEvents {
  released: [clientId: string];
}

/**
 * The connections acting for each client now: a connection that named a client, or one of its tabs, in a call uses
 * that client until it closes (an /rpc or /agent socket, an MCP session, a resumable session until its window ends,
 * an HTTP request until it is answered). What CLIENT_ABANDON_MS asks of a client before it closes its tabs.
 */
export class ClientUsers extends EventEmitter<ClientUsersEvents> {
  #byClient = new Map<string, Map<AbortSignal, () => void>>();

  /** The connection whose `closed` this is acts for the client; held until it aborts (none: a call of the hub's own). */
  use(clientId: string, closed: AbortSignal | undefined): void {
    if (closed === undefined || closed.aborted) return;
    let users = this.#byClient.get(clientId);
    if (users?.has(closed)) return;
    if (!users) this.#byClient.set(clientId, (users = new Map()));
    const onClose = (): void => this.#drop(clientId, closed);
    closed.addEventListener("abort", onClose, { once: true });
    users.set(closed, onClose);
  }

  /** Whether a connection acts for the client now. */
  has(clientId: string): boolean {
    return this.#byClient.has(clientId);
  }

  /** How many clients have a connection acting for them (for the soak's figures). */
  get size(): number {
    return this.#byClient.size;
  }

  /** Forgets a client's connections (its context went: a connection that acts for it again is noted again). */
  forget(clientId: string): void {
    const users = this.#byClient.get(clientId);
    if (!users) return;
    for (const [closed, onClose] of users) closed.removeEventListener("abort", onClose);
    this.#byClient.delete(clientId);
  }

  #drop(clientId: string, closed: AbortSignal): void {
    const users = this.#byClient.get(clientId);
    if (!users?.delete(closed)) return;
    if (users.size > 0) return;
    this.#byClient.delete(clientId);
    this.emit("released", clientId);
  }
}
