import type { Browser } from "../cdp/browser.js";
import { newId } from "../ids.js";
import type { ConnectionState } from "../rpc/method.js";
import { requestSummary, type NetworkEntry, type NetworkLog, type RequestSummary } from "./network-log.js";
import { Subscriptions } from "./subscriptions.js";

/** The changes that come within this long of a notification go out together in the next one. */
const FLUSH_INTERVAL_MS = 100;
/** The changed requests kept for a subscriber that reads too slowly; past it the oldest go, counted as missed. */
const PENDING_MAX = 100;

interface Subscription {
  id: string;
  tabId: string;
  target: string;
  connection: ConnectionState;
  /** Changed requests not sent yet, by request id, the least recently changed first. */
  pending: Map<string, RequestSummary>;
  missed: number;
  /** Running while a notification went out less than FLUSH_INTERVAL_MS ago. */
  timer: NodeJS.Timeout | null;
}

/**
 * network.subscribe: each tab's requests, as they are sent and answered, to the connections that subscribed to it,
 * in `network.requests` notifications of at most one a subscriber every FLUSH_INTERVAL_MS. A subscriber that reads
 * too slowly has at most PENDING_MAX requests waiting for it, so it costs bounded memory and never slows the others.
 */
export class NetworkStream {
  #subscriptions = new Subscriptions<Subscription>((subscription) => {
    if (subscription.timer) clearTimeout(subscription.timer);
  });

  constructor(log: NetworkLog, browser: Browser) {
    log.onChange((tabId, entry) => this.#changed(tabId, entry));
    browser.onPageGone((tabId) => this.#subscriptions.dropTab(tabId));
  }

  /** Starts streaming a tab's requests to a connection; ends when it unsubscribes, closes, or the tab goes. */
  subscribe(connection: ConnectionState, tab: { tabId: string; target: string }): string {
    const subscription: Subscription = { id: newId(), ...tab, connection, pending: new Map(), missed: 0, timer: null };
    this.#subscriptions.add(subscription);
    return subscription.id;
  }

  /** How many network subscriptions a connection holds. */
  countOf(connection: ConnectionState): number {
    return this.#subscriptions.countOf(connection);
  }

  /** Ends one of the connection's subscriptions; false when it has none with that id. */
  unsubscribe(connection: ConnectionState, subscriptionId: string): boolean {
    return this.#subscriptions.unsubscribe(connection, subscriptionId);
  }

  /** How many subscriptions are live (for tests and metrics). */
  get size(): number {
    return this.#subscriptions.size;
  }

  #changed(tabId: string, entry: NetworkEntry): void {
    const subscriptions = this.#subscriptions.ofTab(tabId);
    if (subscriptions.size === 0) return;
    const summary = requestSummary(entry);
    for (const subscription of subscriptions) {
      const { pending } = subscription;
      // A request changed again moves to the end: the notification lists requests in the order of their last change.
      pending.delete(summary.requestId);
      pending.set(summary.requestId, summary);
      if (pending.size > PENDING_MAX) {
        pending.delete(pending.keys().next().value as string);
        subscription.missed++;
      }
      if (!subscription.timer) this.#flush(subscription);
    }
  }

  /** Sends what waits, if the connection has room, and holds the next notification back for FLUSH_INTERVAL_MS. */
  #flush(subscription: Subscription): void {
    const { id: subscriptionId, target, pending, missed } = subscription;
    if (pending.size === 0 && missed === 0) return;
    const requests = [...pending.values()];
    if (subscription.connection.notify("network.requests", { subscriptionId, target, requests, ...(missed > 0 ? { missed } : {}) })) {
      pending.clear();
      subscription.missed = 0;
    }
    subscription.timer = setTimeout(() => {
      subscription.timer = null;
      this.#flush(subscription);
    }, FLUSH_INTERVAL_MS);
  }
}
