import { log } from "../log.js";

/** Why an instance dropped a cluster message (the `reason` label of tabwire_cluster_messages_dropped_total). */
export type DropReason = "unsigned" | "stale" | "forged" | "replayed" | "too_large" | "malformed";

/** Every reason, in the order /metrics lists them. */
export const DROP_REASONS: readonly DropReason[] = ["unsigned", "stale", "forged", "replayed", "too_large", "malformed"];

// What each reason means and what the operator can do: the log says this, never the message itself.
const WHY: Record<DropReason, string> = {
  unsigned:
    "it carries no signature; something other than a tabwire instance publishes on the cluster's channels (keep Redis private: a password or ACL, TLS)",
  stale: "it was signed more than 30 s from this instance's clock; keep the instances' clocks synchronized (NTP)",
  forged: "its signature does not match CLUSTER_SECRET; give every instance the same CLUSTER_SECRET, and keep Redis private",
  replayed: "it was taken already, or was signed for another instance; someone republishes captured messages on Redis",
  too_large:
    "it is over CLUSTER_MAX_MESSAGE_BYTES (refused at the sender, or received from an instance with a larger setting); give every instance the same value",
  malformed:
    "it is not a well-formed cluster message (broken header, JSON, nesting or fields); run the same tabwire version on every instance",
};

// One log line per reason per minute at most: a flood of bad messages must not flood the log.
const LOG_EVERY_MS = 60_000;

/** What a counter reports to: the metric, a warning line, and the clock (both replaceable in tests). */
export interface DropCounterOptions {
  count(reason: DropReason): void;
  warn?: (message: string, meta: Record<string, unknown>) => void;
  now?: () => number;
}

/** Counts the cluster messages an instance drops, by reason, and logs each reason at most once a minute. */
export class DropCounter {
  #count: (reason: DropReason) => void;
  #warn: (message: string, meta: Record<string, unknown>) => void;
  #now: () => number;
  #lastLogged = new Map<DropReason, number>();
  #unlogged = new Map<DropReason, number>();

  constructor(options: DropCounterOptions) {
    this.#count = options.count;
    this.#warn = options.warn ?? ((message, meta) => log.warn(message, meta));
    this.#now = options.now ?? Date.now;
  }

  /** One message was dropped for `reason`. */
  drop(reason: DropReason): void {
    this.#count(reason);
    const now = this.#now();
    const last = this.#lastLogged.get(reason);
    const unlogged = this.#unlogged.get(reason) ?? 0;
    if (last !== undefined && now - last < LOG_EVERY_MS) return void this.#unlogged.set(reason, unlogged + 1);
    this.#lastLogged.set(reason, now);
    this.#unlogged.set(reason, 0);
    this.#warn(`cluster: dropped a message between instances: ${WHY[reason]}`, { reason, alsoDroppedSinceLastLine: unlogged });
  }
}
