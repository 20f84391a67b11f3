/** Why a connection was refused: which cap it met, and a message naming the setting. */
export interface CapRefusal {
  reason: "max_connections" | "max_connections_per_ip";
  message: string;
}

/**
 * Counts the hub's WebSocket connections, in all and per peer address, so that MAX_CONNECTIONS and
 * MAX_CONNECTIONS_PER_IP are refused before the upgrade and one peer cannot take every slot.
 */
export class ConnectionCaps {
  #total = 0;
  #byPeer = new Map<string, number>();
  #max: number;
  #maxPerPeer: number;

  constructor(max: number, maxPerPeer: number) {
    this.#max = max;
    this.#maxPerPeer = maxPerPeer;
  }

  /** Takes a slot for a connection of `peer`: the function that gives it back (once), or why there is none. */
  open(peer: string): (() => void) | CapRefusal {
    if (this.#total >= this.#max) {
      return { reason: "max_connections", message: `the hub holds ${this.#max} connections (MAX_CONNECTIONS); retry later` };
    }
    const mine = this.#byPeer.get(peer) ?? 0;
    if (mine >= this.#maxPerPeer) {
      return {
        reason: "max_connections_per_ip",
        message: `${this.#maxPerPeer} connections from your address are open (MAX_CONNECTIONS_PER_IP); close some first`,
      };
    }
    this.#total++;
    this.#byPeer.set(peer, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      const left = (this.#byPeer.get(peer) ?? 1) - 1;
      if (left > 0) this.#byPeer.set(peer, left);
      else this.#byPeer.delete(peer);
    };
  }
}
