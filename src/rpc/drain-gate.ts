import { HubError, toWireError } from "../errors.js";
import type { Envelope, InvalidItem, RequestItem } from "./envelope.js";
import type { CallObserver } from "./router.js";

/** How long a caller refused by a draining hub is told to wait: a new connection finds another instance or the restarted hub. */
export const DRAIN_RETRY_AFTER_MS = 1_000;

/** What a refusal of a draining hub carries for programs. */
export interface DrainRefusalData {
  draining: true;
  retryAfterMs: number;
  /** When the hub stops at the latest, ms since epoch. */
  deadline: number;
}

/** A frame's items, one or a batch. */
export type FrameItems = Exclude<Envelope, { kind: "frame-error" }>;

/**
 * Whether the hub is draining (stopping: no new connections or calls, the running ones finish), and how many calls
 * run now, so the drain can end as soon as the last one is answered.
 */
export class DrainGate {
  #deadline: number | null = null;
  #running = 0;
  #idle: (() => void)[] = [];

  /** Whether the drain has begun. */
  get isDraining(): boolean {
    return this.#deadline !== null;
  }

  /** When the hub stops at the latest (ms since epoch), or null while it is not draining. */
  get deadline(): number | null {
    return this.#deadline;
  }

  /** How many calls run now (requests and notifications, every door's). */
  get running(): number {
    return this.#running;
  }

  /** Begins the drain (once): from now on new calls are refused; returns the deadline, ms since epoch. */
  begin(timeoutMs: number): number {
    this.#deadline ??= Date.now() + timeoutMs;
    return this.#deadline;
  }

  /** The OVERLOADED error a new call gets while the hub drains. */
  refusal(): HubError {
    return new HubError(
      "OVERLOADED",
      "the hub is draining before it stops and takes no new calls; retry on a new connection (another instance, or this hub once restarted)",
      this.refusalData(),
    );
  }

  /** The data of a refusal: `draining`, the retry hint and the deadline. */
  refusalData(): DrainRefusalData {
    return { draining: true, retryAfterMs: DRAIN_RETRY_AFTER_MS, deadline: this.#deadline ?? Date.now() };
  }

  /**
   * A frame's envelope with its calls refused: each request answered OVERLOADED (`data.draining`), each notification
   * dropped; the methods `isExempt` names (cancel) still run.
   */
  refuseNew(envelope: FrameItems, isExempt: (method: string) => boolean): FrameItems {
    const error = toWireError(this.refusal());
    const refused = (item: RequestItem | InvalidItem): RequestItem | InvalidItem | null => {
      if (item.kind === "invalid" || isExempt(item.method)) return item;
      return item.id === undefined ? null : { kind: "invalid", response: { jsonrpc: "2.0", id: item.id, error } };
    };
    if (envelope.kind === "batch") return { kind: "batch", items: envelope.items.map(refused).filter((item) => item !== null) };
    const item = refused(envelope.item);
    return item === null ? { kind: "batch", items: [] } : { kind: "single", item };
  }

  /** An observer that counts running calls for the drain and passes everything on to `next`. */
  observe(next?: CallObserver): CallObserver {
    return {
      running: (delta) => {
        this.#running += delta;
        // Checked before splice(0), which would make an empty array each time the hub goes idle (after most calls).
        if (this.#running === 0 && this.#idle.length > 0) for (const resolve of this.#idle.splice(0)) resolve();
        next?.running(delta);
      },
      answered: (method, outcome, call) => next?.answered(method, outcome, call),
    };
  }

  /** Resolves when no call runs (at once if none does); the caller bounds the wait. */
  whenIdle(): Promise<void> {
    if (this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}
