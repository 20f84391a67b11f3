/** The time the watch reads, and how it is woken: Node's clock and timers, or a test's. */
export interface WatchClock {
  now(): number;
  /** Calls `tick` every `everyMs` until the answered function is called. */
  every(everyMs: number, tick: () => void): () => void;
}

/** What the watch asks of the hub, and what it has it do. */
export interface AbandonWatchOptions {
  /** How long a client goes unused before it is abandoned (CLIENT_ABANDON_MS); 0: never. */
  abandonMs: number;
  /** The clients that hold something a gone caller would leave behind (tabs, a context, routes). */
  clients(): Iterable<string>;
  /** Whether something uses the client now (a connection, an agent, a hold on its context, its persistence). */
  isInUse(clientId: string): boolean;
  /** Closes what the client holds; the watch does not abandon it again while this runs. */
  abandon(clientId: string): Promise<void>;
  clock?: WatchClock;
}

// The longest a client waits past CLIENT_ABANDON_MS: the watch looks every quarter of it, at most this often.
const MAX_TICK_MS = 60_000;
const MIN_TICK_MS = 100;

const NODE_CLOCK: WatchClock = {
  now: () => Date.now(),
  every(everyMs, tick) {
    const timer = setInterval(tick, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/**
 * Finds the clients nothing has used for CLIENT_ABANDON_MS (no connection acting for them, no agent, nothing holding
 * their context) and has them abandoned. It looks every quarter of CLIENT_ABANDON_MS (a minute at most), so a client
 * goes between CLIENT_ABANDON_MS and that much later; a client is unused from the last look that found it in use, or
 * from `released` (its last connection closed), whichever is later.
 */
export class AbandonWatch {
  #options: AbandonWatchOptions;
  #clock: WatchClock;
  /** When each known client was last found in use (or first seen). */
  #usedAt = new Map<string, number>();
  #abandoning = new Set<string>();
  #stop: (() => void) | null = null;

  constructor(options: AbandonWatchOptions) {
    this.#options = options;
    this.#clock = options.clock ?? NODE_CLOCK;
  }

  /** How often the watch looks, in milliseconds. */
  get tickMs(): number {
    return Math.min(MAX_TICK_MS, Math.max(MIN_TICK_MS, Math.floor(this.#options.abandonMs / 4)));
  }

  /** Starts looking (nothing with CLIENT_ABANDON_MS=0). */
  start(): void {
    if (this.#options.abandonMs === 0 || this.#stop) return;
    this.#stop = this.#clock.every(this.tickMs, () => this.check());
  }

  /** Stops looking (the hub stops). */
  stop(): void {
    this.#stop?.();
    this.#stop = null;
  }

  /** The client was used just now (its last connection closed): its time starts again from here. */
  released(clientId: string): void {
    this.#usedAt.set(clientId, this.#clock.now());
  }

  /** Looks at every client once: abandons those unused for CLIENT_ABANDON_MS and forgets those that hold nothing. */
  check(): void {
    const now = this.#clock.now();
    const seen = new Set<string>();
    for (const clientId of this.#options.clients()) {
      seen.add(clientId);
      const usedAt = this.#usedAt.get(clientId);
      if (usedAt === undefined || this.#abandoning.has(clientId) || this.#options.isInUse(clientId)) {
        this.#usedAt.set(clientId, now);
      } else if (now - usedAt >= this.#options.abandonMs) {
        this.#abandon(clientId);
      }
    }
    for (const clientId of [...this.#usedAt.keys()]) if (!seen.has(clientId)) this.#usedAt.delete(clientId);
  }

  #abandon(clientId: string): void {
    this.#abandoning.add(clientId);
    this.#usedAt.delete(clientId);
    void this.#options
      .abandon(clientId)
      .catch(() => undefined)
      .finally(() => this.#abandoning.delete(clientId));
  }
}
