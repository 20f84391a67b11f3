import type { Methods } from "../protocol/types.js";

/** What the `reconnected` event tells: whether the session was resumed, and if not what was lost and set up again. */
export interface Reconnected {
  /** The hub gave the new connection the old session: subscriptions, missed notifications and owed answers. */
  resumed: boolean;
  /** Not resumed: why (the hub's reason, or `unsupported` when the hub offers no resume). */
  reason?: "expired" | "overflowed" | "unknown" | "unsupported";
  /** Resumed: how many notifications and answers the hub sent again. */
  replayed?: number;
  answered?: number;
  /** Not resumed: the notifications missed for good (by seq), where the hub knows them. */
  missed?: { fromSeq: number; toSeq: number };
  /** Not resumed: how many calls were rejected with CallInDoubtError (each may or may not have run). */
  inDoubt: number;
  /** Not resumed: the subscriptions made again on the new connection, with their new ids. */
  resubscribed: { method: SubscribeMethod; subscriptionId: string; newSubscriptionId: string }[];
  /** Not resumed: subscriptions that could not be made again (the tab is gone, say), with the hub's message. */
  failed: { method: SubscribeMethod; subscriptionId: string; message: string }[];
}

/** The calls that open a subscription the client can make again. */
export type SubscribeMethod = "console.subscribe" | "screencast.start";
type Subscription = { method: SubscribeMethod; params: Record<string, unknown> };
type Caller = <M extends keyof Methods>(method: M, params: Methods[M]["params"]) => Promise<Methods[M]["result"]>;

/** The client's side of a session: its id, the last seq it saw, and what it subscribed to, to resume or redo. */
export class ResumeState {
  /** The session the hub named for the connection (Tabwire-Session), or null when the hub offers none. */
  session: string | null = null;
  /** How long the hub keeps a dropped session (Tabwire-Resume-Window-Ms). */
  windowMs = 0;
  #lastSeq = 0;
  #subscriptions = new Map<string, Subscription>();
  #topics: Methods["events.subscribe"]["params"] | null = null;

  /** The seq of the last notification received. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Whether a notification is new (not one the hub sent again after a resume and already handed on). */
  accept(params: unknown): boolean {
    const seq = (params as { seq?: unknown } | null)?.seq;
    if (typeof seq !== "number") return true;
    if (seq <= this.#lastSeq) return false;
    this.#lastSeq = seq;
    return true;
  }

  /** A new session whose seq starts again: the connection's own when a resume failed. */
  restart(session: string | null): void {
    this.session = session;
    this.#lastSeq = 0;
  }

  /** Notes what an answered call subscribed to or ended. */
  track(method: string, params: unknown, result: unknown): void {
    const args = (params ?? {}) as Record<string, unknown>;
    if (method === "console.subscribe" || method === "screencast.start") {
      const { subscriptionId } = result as { subscriptionId: string };
      this.#subscriptions.set(subscriptionId, { method, params: args });
    } else if (method === "console.unsubscribe" || method === "screencast.stop") {
      this.#subscriptions.delete(String(args.subscriptionId));
    } else if (method === "events.subscribe") {
      const topics = args as Methods["events.subscribe"]["params"];
      this.#topics = topics.topics.length > 0 ? topics : null;
    }
  }

  /** Makes the subscriptions again on a new session; replays of console history are not asked twice. */
  async resubscribe(call: Caller): Promise<Pick<Reconnected, "resubscribed" | "failed">> {
    const resubscribed: Reconnected["resubscribed"] = [];
    const failed: Reconnected["failed"] = [];
    const old = [...this.#subscriptions];
    this.#subscriptions.clear();
    for (const [subscriptionId, { method, params }] of old) {
      try {
        const { replay: _replay, ...again } = params;
        const result = await call(method, again as Methods[typeof method]["params"]);
        this.#subscriptions.set(result.subscriptionId, { method, params });
        resubscribed.push({ method, subscriptionId, newSubscriptionId: result.subscriptionId });
      } catch (error) {
        failed.push({ method, subscriptionId, message: (error as Error).message });
      }
    }
    if (this.#topics) await call("events.subscribe", this.#topics).catch(() => undefined);
    return { resubscribed, failed };
  }
}
