/** A token bucket: `perSecond` requests a second on average, bursts of up to `perSecond`; 0 lets everything through. */
export class RateLimit {
  #tokens: number;
  #last = performance.now();

  constructor(readonly perSecond: number) {
    this.#tokens = perSecond;
  }

  /** Takes one token: 0 when the request may run now, else how many milliseconds until one is free. */
  take(): number {
    if (this.perSecond <= 0) return 0;
    const now = performance.now();
    this.#tokens = Math.min(this.perSecond, this.#tokens + ((now - this.#last) / 1000) * this.perSecond);
    this.#last = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / this.perSecond) * 1000);
  }
}
