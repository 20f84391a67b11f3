import { ErrorCode } from "../errors.js";
import { RateLimit } from "../rpc/rate-limit.js";
import { HttpError } from "./http-io.js";

interface Caller {
  running: number;
  rate: RateLimit;
}

/**
 * MAX_INFLIGHT and RATE_LIMIT_PER_SEC for HTTP requests, per token (per peer address on a hub with no tokens), as a
 * WebSocket connection has them: past either, 503 OVERLOADED with `retryAfterMs`.
 */
export class HttpLimits {
  #callers = new Map<string, Caller>();
  #maxInflight: number;
  #ratePerSec: number;

  constructor(maxInflight: number, ratePerSec: number) {
    this.#maxInflight = maxInflight;
    this.#ratePerSec = ratePerSec;
  }

  /** Starts a request of `key`: the function that ends it, or 503 OVERLOADED. */
  start(key: string): () => void {
    let caller = this.#callers.get(key);
    if (!caller) this.#callers.set(key, (caller = { running: 0, rate: new RateLimit(this.#ratePerSec) }));
    if (caller.running >= this.#maxInflight) {
      throw new HttpError(503, {
        code: ErrorCode.OVERLOADED,
        message: `${this.#maxInflight} requests of this token are already running (MAX_INFLIGHT); retry when some are answered`,
        data: { retryAfterMs: 100 },
      });
    }
    const retryAfterMs = caller.rate.take();
    if (retryAfterMs > 0) {
      throw new HttpError(503, {
        code: ErrorCode.OVERLOADED,
        message: `more than ${this.#ratePerSec} requests a second with this token (RATE_LIMIT_PER_SEC); retry in ${retryAfterMs} ms`,
        data: { retryAfterMs },
      });
    }
    caller.running++;
    const running = caller;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      running.running--;
    };
  }
}
