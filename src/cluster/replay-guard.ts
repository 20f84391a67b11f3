/**
 * Remembers the nonces of the messages an instance took, so that a message republished within the time window is
 * refused. Nonces are kept in buckets by the message's own timestamp, one bucket per window, and a bucket goes
 * once every timestamp in it is outside the window: a nonce is remembered exactly as long as its message could
 * still be taken, and memory holds at most the messages signed within three windows.
 */
export class ReplayGuard {
  #windowMs: number;
  #buckets = new Map<number, Set<string>>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** Records a message's nonce; false when it was already taken (a replay). `timestampMs` must be within the window. */
  take(nonce: string, timestampMs: number, nowMs: number): boolean {
    this.#expire(nowMs);
    const index = Math.floor(timestampMs / this.#windowMs);
    let seen = this.#buckets.get(index);
    if (!seen) this.#buckets.set(index, (seen = new Set()));
    if (seen.has(nonce)) return false;
    seen.add(nonce);
    return true;
  }

  /** How many nonces it holds now. */
  get size(): number {
    let size = 0;
    for (const seen of this.#buckets.values()) size += seen.size;
    return size;
  }

  #expire(nowMs: number): void {
    for (const index of this.#buckets.keys()) {
      // The newest timestamp in bucket `index` is (index + 1) * window - 1; once it is stale, all of them are.
      if ((index + 1) * this.#windowMs <= nowMs - this.#windowMs) this.#buckets.delete(index);
    }
  }
}
