import { RateLimit } from "../rpc/rate-limit.js";
import { CdpFailure } from "./cdp-frames.js";

/** A /cdp connection's own limits, as /rpc's: MAX_INFLIGHT commands running at once and RATE_LIMIT_PER_SEC a second. */
export class CdpLimits {
  #maxInflight: number;
  #ratePerSec: number;
  #rate: RateLimit;
  #running = 0;

  constructor(limits: { maxInflight: number; ratePerSec: number }) {
    this.#maxInflight = limits.maxInflight;
    this.#ratePerSec = limits.ratePerSec;
    this.#rate = new RateLimit(limits.ratePerSec);
  }

  /** Runs a command within the limits, or fails it with the CDP error that says which limit it met. */
  run<T>(command: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#maxInflight) {
      const why = `${this.#maxInflight} commands of this connection are already running (MAX_INFLIGHT); send more as they are answered`;
      return Promise.reject(new CdpFailure(-32000, why));
    }
    const retryAfterMs = this.#rate.take();
    if (retryAfterMs > 0) {
      const why = `more than ${this.#ratePerSec} commands a second on this connection (RATE_LIMIT_PER_SEC); retry in ${retryAfterMs} ms`;
      return Promise.reject(new CdpFailure(-32000, why));
    }
    this.#running++;
    return command().finally(() => this.#running--);
  }
}
