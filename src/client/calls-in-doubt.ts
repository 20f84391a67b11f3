/**
 * The ids of a client's calls not answered yet, and what becomes of them when the connection drops: held while the
 * session may be resumed (its answers then come on the new connection), else rejected as in doubt, never sent again.
 */
export class CallsInDoubt {
  #pending = new Set<number>();
  #held: { ids: number[]; timer: NodeJS.Timeout } | null = null;
  // Rejected when the window passed before a new connection could ask: counted in the next settle.
  #expired = 0;
  #reject: (id: number) => void;

  /** `reject` answers one call with the client's in-doubt error. */
  constructor(reject: (id: number) => void) {
    this.#reject = reject;
  }

  /** A call was sent. */
  add(id: number): void {
    this.#pending.add(id);
  }

  /** A call was answered. */
  delete(id: number): void {
    this.#pending.delete(id);
  }

  /** Holds the calls not answered yet for a resume, rejecting them when `windowMs` passes first. */
  hold(windowMs: number): void {
    if (this.#held) return;
    const timer = setTimeout(() => (this.#expired = this.settle(false)), windowMs);
    timer.unref();
    this.#held = { ids: [...this.#pending], timer };
  }

  /** The held calls: left to the resumed session's answers, or rejected; returns how many were rejected since the drop. */
  settle(resumed: boolean): number {
    const expired = this.#expired;
    this.#expired = 0;
    if (!this.#held) return expired;
    const { ids, timer } = this.#held;
    clearTimeout(timer);
    this.#held = null;
    return expired + (resumed ? 0 : this.#rejectOpen(ids));
  }

  /** Rejects every call not answered yet; returns how many. */
  rejectAll(): number {
    this.settle(false);
    return this.#rejectOpen([...this.#pending]);
  }

  #rejectOpen(ids: number[]): number {
    const open = ids.filter((id) => this.#pending.has(id));
    for (const id of open) this.#reject(id);
    return open.length;
  }
}
