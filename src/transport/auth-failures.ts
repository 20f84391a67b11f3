import { isIPv4, isIPv6 } from "node:net";
import { audit } from "../log.js";

/** How many failed authentications a minute the hub takes: from one source (bursts of as many), and from all together. */
export interface AuthFailureLimits {
  /** AUTH_FAILURES_PER_MIN: per source, an IPv4 address or an IPv6 /64. */
  perSourcePerMinute: number;
  /** AUTH_FAILURES_GLOBAL_PER_MIN: from every source together. */
  globalPerMinute: number;
}

/** Why an authentication is refused before its credential is read: a message that says when to retry, and when. */
export interface Throttle {
  retryAfterMs: number;
  message: string;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MINUTE_MS = 60_000;
// Sources tracked at once, failing ones and ones that authenticated: past it the least recently seen are forgotten.
const MAX_SOURCES = 10_000;
// While the global ceiling is reached, a source that authenticated this recently still has its credentials read,
// so a flood of wrong tokens from elsewhere cannot lock out the callers already at work.
const KNOWN_FOR_MS = 60 * MINUTE_MS;
// Idle sources are swept at most this often, or once a second while a table is full (a sweep reads every entry).
const SWEEP_EVERY_MS = MINUTE_MS;
const SWEEP_FULL_EVERY_MS = 1_000;

/**
 * The one limiter of failed authentications (a wrong or missing token where one is required, a wrong agent key) for
 * every door: token buckets per source and for the whole hub. A source over its limit, or any source that has not
 * authenticated lately while the whole hub is over its ceiling, is refused without its credential being checked.
 */
export class AuthFailures {
  #limits: AuthFailureLimits;
  #now: () => number;
  #failing = new Map<string, Bucket>();
  #known = new Map<string, number>();
  #global: Bucket;
  #sweptAt: number;
  #globalTripped = false;

  /** `now`: a monotonic clock in milliseconds (tests pass their own). */
  constructor(limits: AuthFailureLimits, now: () => number = () => performance.now()) {
    this.#limits = limits;
    this.#now = now;
    this.#sweptAt = now();
    this.#global = { tokens: limits.globalPerMinute, at: now() };
  }

  /** Why `source` may not try to authenticate now, or null when it may. */
  throttle(source: string): Throttle | null {
    const now = this.#now();
    const { perSourcePerMinute: perSource, globalPerMinute: global } = this.#limits;
    const bucket = this.#failing.get(source);
    if (bucket && refill(bucket, perSource, now) < 1) {
      const retryAfterMs = waitMs(bucket, perSource);
      return {
        retryAfterMs,
        message: `too many failed authentications from your address (AUTH_FAILURES_PER_MIN: ${perSource} a minute); retry in ${seconds(retryAfterMs)} s with a valid token`,
      };
    }
    if (refill(this.#global, global, now) >= 1 || this.#isKnown(source, now)) return null;
    const retryAfterMs = waitMs(this.#global, global);
    return {
      retryAfterMs,
      message: `too many failed authentications at this hub from all addresses (AUTH_FAILURES_GLOBAL_PER_MIN: ${global} a minute); retry in ${seconds(retryAfterMs)} s`,
    };
  }

  /** Counts a failed authentication of `source`. */
  failed(source: string): void {
    const now = this.#now();
    this.#sweep(now);
    const { perSourcePerMinute: perSource, globalPerMinute: global } = this.#limits;
    const bucket = this.#failing.get(source) ?? { tokens: perSource, at: now };
    refill(bucket, perSource, now);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    // Re-inserted, so the map's order is the order sources were last seen in.
    this.#failing.delete(source);
    this.#failing.set(source, bucket);
    if (this.#failing.size > MAX_SOURCES) this.#forgetOldest(this.#failing);
    refill(this.#global, global, now);
    this.#global.tokens = Math.max(0, this.#global.tokens - 1);
    if (bucket.tokens < 1) audit("auth.limited", { source, limit: "AUTH_FAILURES_PER_MIN" });
    const tripped = this.#global.tokens < 1;
    if (tripped && !this.#globalTripped) audit("auth.limited", { source: "all", limit: "AUTH_FAILURES_GLOBAL_PER_MIN" });
    this.#globalTripped = tripped;
  }

  /** Remembers that `source` authenticated, so the global ceiling does not refuse it for a while. */
  succeeded(source: string): void {
    const now = this.#now();
    this.#sweep(now);
    this.#known.delete(source);
    this.#known.set(source, now);
    if (this.#known.size > MAX_SOURCES) this.#forgetOldest(this.#known);
  }

  /** How many sources the limiter holds state for (its memory). */
  get trackedSources(): number {
    return this.#failing.size + this.#known.size;
  }

  #isKnown(source: string, now: number): boolean {
    const at = this.#known.get(source);
    return at !== undefined && now - at < KNOWN_FOR_MS;
  }

  /** Forgets sources whose bucket is full again (nothing to remember) and successes older than KNOWN_FOR_MS. */
  #sweep(now: number): void {
    const full = this.#failing.size >= MAX_SOURCES || this.#known.size >= MAX_SOURCES;
    if (now - this.#sweptAt < (full ? SWEEP_FULL_EVERY_MS : SWEEP_EVERY_MS)) return;
    this.#sweptAt = now;
    const perSource = this.#limits.perSourcePerMinute;
    for (const [source, bucket] of this.#failing) if (refill(bucket, perSource, now) >= perSource) this.#failing.delete(source);
    for (const [source, at] of this.#known) if (now - at >= KNOWN_FOR_MS) this.#known.delete(source);
  }

  #forgetOldest(table: Map<string, unknown>): void {
    const oldest = table.keys().next().value;
    if (oldest !== undefined) table.delete(oldest);
  }
}

/**
 * The source a peer address counts as: an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4), an IPv6
 * address as its /64 (one subscriber's network: an attacker with one has 2^64 addresses).
 */
export function sourceOf(address: string | undefined): string {
  if (!address) return "unknown";
  const bare = address.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare)?.[1];
  if (mapped !== undefined) return mapped;
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return bare;
  const groups = ipv6Groups(bare);
  const mappedHex = groups.slice(0, 6).join(":") === "0:0:0:0:0:ffff";
  if (mappedHex) return [groups[6], groups[7]].flatMap((group) => ipv4Halves(group ?? "0")).join(".");
  return `${groups.slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, without leading zeros (an embedded IPv4 tail becomes two). */
function ipv6Groups(address: string): string[] {
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  let text = address;
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${address.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = rest === undefined || rest === "" ? [] : rest.split(":");
  const zeros = rest === undefined ? [] : new Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}

function ipv4Halves(group: string): number[] {
  const value = parseInt(group, 16);
  return [value >> 8, value & 0xff];
}

/** Refills a bucket of `perMinute` tokens for the time since it was last read; its tokens now. */
function refill(bucket: Bucket, perMinute: number, now: number): number {
  bucket.tokens = Math.min(perMinute, bucket.tokens + ((now - bucket.at) * perMinute) / MINUTE_MS);
  bucket.at = now;
  return bucket.tokens;
}

function waitMs(bucket: Bucket, perMinute: number): number {
  return Math.max(1, Math.ceil(((1 - bucket.tokens) * MINUTE_MS) / perMinute));
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
