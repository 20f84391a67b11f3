import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import { newId } from "../ids.js";
import type { ConnectionState } from "../rpc/method.js";
import type { ConsoleLevel } from "../runtime/console-text.js";
import { ConsoleBuffer } from "./console-buffer.js";
import { capMessage, fromConsoleCall, fromException, fromLogEntry, type ConsoleMessage } from "./console-message.js";

/** What a subscriber asked for. */
export interface SubscribeOptions {
  tabId: string;
  target: string;
  levels: readonly ConsoleLevel[] | undefined;
  exceptions: boolean;
  replay: boolean;
}

interface Subscription {
  id: string;
  tabId: string;
  target: string;
  connection: ConnectionState;
  levels: ReadonlySet<ConsoleLevel> | null;
  exceptions: boolean;
  dropped: number;
  retry: NodeJS.Timeout | null;
  /** Removes the listener that ends the subscription with its connection (a long-lived connection subscribes often). */
  stopWatchingConnection: () => void;
}

/** How often a subscriber that lost messages is offered its console.dropped notice while nothing else is logged. */
const DROPPED_RETRY_MS = 100;

/**
 * Collects every attached tab's console (Runtime.consoleAPICalled, Runtime.exceptionThrown, Log.entryAdded) into a
 * bounded ring buffer and streams it to subscribers in page order. A subscriber that reads too slowly has messages
 * dropped and counted (console.dropped), so it costs bounded memory and never slows the others.
 */
export class ConsoleStream {
  #bufferSize: number;
  #bufferBytes: number;
  #buffers = new Map<string, ConsoleBuffer>();
  #byTab = new Map<string, Set<Subscription>>();
  #byId = new Map<string, Subscription>();
  #perConnection = new WeakMap<ConnectionState, number>();
  #droppedTotal = 0;

  constructor(pool: SessionPool, bufferSize: number, bufferBytes = Infinity) {
    this.#bufferSize = bufferSize;
    this.#bufferBytes = bufferBytes;
    pool.on("attached", (tab) => this.#watch(tab));
  }

  /** Console messages dropped for slow subscribers since the hub started. */
  get droppedTotal(): number {
    return this.#droppedTotal;
  }

  /** Starts streaming a tab's console to a connection; ends when it unsubscribes, closes, or the tab goes. */
  subscribe(connection: ConnectionState, options: SubscribeOptions): string {
    const subscription: Subscription = {
      id: newId(),
      tabId: options.tabId,
      target: options.target,
      connection,
      levels: options.levels ? new Set(options.levels) : null,
      exceptions: options.exceptions,
      dropped: 0,
      retry: null,
      stopWatchingConnection: () => {},
    };
    this.#byId.set(subscription.id, subscription);
    this.#perConnection.set(connection, this.countOf(connection) + 1);
    let subscriptions = this.#byTab.get(options.tabId);
    if (!subscriptions) this.#byTab.set(options.tabId, (subscriptions = new Set()));
    subscriptions.add(subscription);
    const onClosed = (): void => void this.unsubscribe(connection, subscription.id);
    connection.closed.addEventListener("abort", onClosed, { once: true });
    subscription.stopWatchingConnection = () => connection.closed.removeEventListener("abort", onClosed);
    if (options.replay) for (const message of this.list(options.tabId, this.#bufferSize, true)) this.#deliver(subscription, message);
    return subscription.id;
  }

  /** How many subscriptions a connection holds. */
  countOf(connection: ConnectionState): number {
    return this.#perConnection.get(connection) ?? 0;
  }

  /** Ends one of the connection's subscriptions; false when it has none with that id. */
  unsubscribe(connection: ConnectionState, subscriptionId: string): boolean {
    const subscription = this.#byId.get(subscriptionId);
    if (!subscription || subscription.connection !== connection) return false;
    this.#remove(subscription);
    return true;
  }

  /** The newest messages of a tab, in page order. */
  list(tabId: string, limit: number, sinceNavigation: boolean): ConsoleMessage[] {
    return this.#buffers.get(tabId)?.recent(limit, sinceNavigation) ?? [];
  }

  /** The connections subscribed to a tab's console. */
  subscribersOf(tabId: string): ConnectionState[] {
    return [...(this.#byTab.get(tabId) ?? [])].map((subscription) => subscription.connection);
  }

  /** Ends every subscription of a tab that went (closed or crashed: the hub closes crashed tabs) and forgets its log. */
  dropTab(tabId: string): void {
    for (const subscription of this.#byTab.get(tabId) ?? []) this.#remove(subscription);
    this.#buffers.delete(tabId);
  }

  /** How many subscriptions are live (for tests and metrics). */
  get size(): number {
    return this.#byId.size;
  }

  #watch(tab: TabSession): void {
    const tabId = tab.tabId;
    let buffer = this.#buffers.get(tabId);
    // Runtime.enable replays what V8 kept of the page's console; after a re-attach those are already buffered.
    const replayedBefore = buffer ? buffer.newestTimestamp : -Infinity;
    if (!buffer) this.#buffers.set(tabId, (buffer = new ConsoleBuffer(this.#bufferSize, this.#bufferBytes)));
    const record = (logged: ConsoleMessage): void => {
      if (logged.timestamp <= replayedBefore) return;
      const message = capMessage(logged);
      buffer.push(message);
      for (const subscription of this.#byTab.get(tabId) ?? []) this.#deliver(subscription, message);
    };
    tab.listen("Runtime.consoleAPICalled", (event) => record(fromConsoleCall(event)));
    tab.listen("Runtime.exceptionThrown", (event) => record(fromException(event)));
    tab.listen("Log.entryAdded", (event) => record(fromLogEntry(event)));
    tab.listen("Page.javascriptDialogOpening", (event) => {
      const told = new Set<ConnectionState>();
      for (const { connection, target } of this.#byTab.get(tabId) ?? []) {
        if (told.has(connection)) continue;
        told.add(connection);
        connection.notify("dialog.opened", { target, type: event.type, message: event.message });
      }
    });
    tab.onNavigated(() => buffer.markNavigation());
  }

  #deliver(subscription: Subscription, message: ConsoleMessage): void {
    if (message.source === "exception" ? !subscription.exceptions : subscription.levels?.has(message.level) === false) return;
    if (subscription.dropped > 0 && !this.#offerDropped(subscription)) {
      subscription.dropped++;
      this.#droppedTotal++;
      return;
    }
    const sent = subscription.connection.notify("console.message", {
      subscriptionId: subscription.id,
      target: subscription.target,
      ...message,
    });
    if (sent) return;
    subscription.dropped++;
    this.#droppedTotal++;
    subscription.retry ??= setInterval(() => this.#offerDropped(subscription), DROPPED_RETRY_MS);
  }

  /** Sends the console.dropped notice if the connection has room again; true when nothing is owed any more. */
  #offerDropped(subscription: Subscription): boolean {
    const { id: subscriptionId, target, dropped: count } = subscription;
    if (!subscription.connection.notify("console.dropped", { subscriptionId, target, count })) return false;
    subscription.dropped = 0;
    if (subscription.retry) clearInterval(subscription.retry);
    subscription.retry = null;
    return true;
  }

  #remove(subscription: Subscription): void {
    if (subscription.retry) clearInterval(subscription.retry);
    subscription.stopWatchingConnection();
    this.#byId.delete(subscription.id);
    this.#perConnection.set(subscription.connection, this.countOf(subscription.connection) - 1);
    const subscriptions = this.#byTab.get(subscription.tabId);
    subscriptions?.delete(subscription);
    if (subscriptions?.size === 0) this.#byTab.delete(subscription.tabId);
  }
}
