import type { ConnectionState } from "../rpc/method.js";

/** What every subscription of a stream has: its id, the tab it follows and the connection it streams to. */
export interface Subscribed {
  id: string;
  tabId: string;
  connection: ConnectionState;
}

/**
 * A stream's subscriptions by id, by tab and by connection: each ends when it is removed, its connection closes, or
 * its tab goes (`dropTab`), then `onRemove` lets the stream stop what it ran for it (a timer, a tab's screencast).
 */
export class Subscriptions<S extends Subscribed> {
  #byTab = new Map<string, Set<S>>();
  #byId = new Map<string, S>();
  #perConnection = new WeakMap<ConnectionState, number>();
  /** Removes the listener that ends a subscription with its connection (a long-lived connection subscribes often). */
  #stopWatching = new Map<string, () => void>();
  #onRemove: (subscription: S) => void;

  constructor(onRemove: (subscription: S) => void = () => {}) {
    this.#onRemove = onRemove;
  }

  /** Records a subscription, ended with its connection. */
  add(subscription: S): void {
    const { id, tabId, connection } = subscription;
    this.#byId.set(id, subscription);
    this.#perConnection.set(connection, this.countOf(connection) + 1);
    let subscriptions = this.#byTab.get(tabId);
    if (!subscriptions) this.#byTab.set(tabId, (subscriptions = new Set()));
    subscriptions.add(subscription);
    const onClosed = (): void => this.remove(subscription);
    connection.closed.addEventListener("abort", onClosed, { once: true });
    this.#stopWatching.set(id, () => connection.closed.removeEventListener("abort", onClosed));
  }

  /** How many subscriptions a connection holds. */
  countOf(connection: ConnectionState): number {
    return this.#perConnection.get(connection) ?? 0;
  }

  /** Ends one of the connection's subscriptions; false when it has none with that id. */
  unsubscribe(connection: ConnectionState, subscriptionId: string): boolean {
    const subscription = this.#byId.get(subscriptionId);
    if (!subscription || subscription.connection !== connection) return false;
    this.remove(subscription);
    return true;
  }

  /** Whether a subscription is still live. */
  has(subscription: S): boolean {
    return this.#byId.get(subscription.id) === subscription;
  }

  /** The subscriptions of a tab. */
  ofTab(tabId: string): ReadonlySet<S> {
    return this.#byTab.get(tabId) ?? EMPTY;
  }

  /** Ends every subscription of a tab. */
  dropTab(tabId: string): void {
    for (const subscription of this.ofTab(tabId)) this.remove(subscription);
  }

  /** Ends a subscription (nothing if it ended already). */
  remove(subscription: S): void {
    if (!this.#byId.delete(subscription.id)) return;
    this.#stopWatching.get(subscription.id)?.();
    this.#stopWatching.delete(subscription.id);
    this.#perConnection.set(subscription.connection, this.countOf(subscription.connection) - 1);
    const subscriptions = this.#byTab.get(subscription.tabId);
    subscriptions?.delete(subscription);
    if (subscriptions?.size === 0) this.#byTab.delete(subscription.tabId);
    this.#onRemove(subscription);
  }

  /** How many subscriptions are live. */
  get size(): number {
    return this.#byId.size;
  }
}

const EMPTY: ReadonlySet<never> = new Set();
