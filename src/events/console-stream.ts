import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import { newId } from "../ids.js";
import type { ConnectionState } from "../rpc/method.js";
import type { ConsoleLevel } from "../runtime/console-text.js";
import { ConsoleBuffer } from "./console-buffer.js";
import { capMessage, fromConsoleCall, fromException, fromLogEntry, type ConsoleMessage } from "./console-message.js";
import { Subscriptions } from "./subscriptions.js";

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
}

/** What a tab's page said: a console message (or exception), or a dialog it opened. */
export type PageSaid = { kind: "message"; message: ConsoleMessage } | { kind: "dialog"; type: string; message: string; url: string };

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
  #subscriptions = new Subscriptions<Subscription>((subscription) => {
    if (subscription.retry) clearInterval(subscription.retry);
  });
  #droppedTotal = 0;
  #listeners = new Set<(tabId: string, said: PageSaid) => void>();

  constructor(pool: SessionPool, bufferSize: number, bufferBytes = Infinity) {
    this.#bufferSize = bufferSize;
    this.#bufferBytes = bufferBytes;
    pool.on("attached", (tab) => this.#watch(tab));
  }

  /** Console messages dropped for slow subscribers since the hub started. */
  get droppedTotal(): number {
    return this.#droppedTotal;
  }

  /** Calls `listener` with every console message and dialog of every tab, until the function it returns is called. */
  onPageSaid(listener: (tabId: string, said: PageSaid) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
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
    };
    this.#subscriptions.add(subscription);
    if (options.replay) for (const message of this.list(options.tabId, this.#bufferSize, true)) this.#deliver(subscription, message);
    return subscription.id;
  }

  /** How many subscriptions a connection holds. */
  countOf(connection: ConnectionState): number {
    return this.#subscriptions.countOf(connection);
  }

  /** Ends one of the connection's subscriptions; false when it has none with that id. */
  unsubscribe(connection: ConnectionState, subscriptionId: string): boolean {
    return this.#subscriptions.unsubscribe(connection, subscriptionId);
  }

  /** The newest messages of a tab, in page order. */
  list(tabId: string, limit: number, sinceNavigation: boolean): ConsoleMessage[] {
    return this.#buffers.get(tabId)?.recent(limit, sinceNavigation) ?? [];
  }

  /** The connections subscribed to a tab's console. */
  subscribersOf(tabId: string): ConnectionState[] {
    return [...this.#subscriptions.ofTab(tabId)].map((subscription) => subscription.connection);
  }

  /** Ends every subscription of a tab that went (closed or crashed: the hub closes crashed tabs) and forgets its log. */
  dropTab(tabId: string): void {
    this.#subscriptions.dropTab(tabId);
    this.#buffers.delete(tabId);
  }

  /** How many subscriptions are live (for tests and metrics). */
  get size(): number {
    return this.#subscriptions.size;
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
      for (const listener of this.#listeners) listener(tabId, { kind: "message", message });
      for (const subscription of this.#subscriptions.ofTab(tabId)) this.#deliver(subscription, message);
    };
    tab.listen("Runtime.consoleAPICalled", (event) => record(fromConsoleCall(event)));
    tab.listen("Runtime.exceptionThrown", (event) => record(fromException(event)));
    tab.listen("Log.entryAdded", (event) => record(fromLogEntry(event)));
    tab.listen("Page.javascriptDialogOpening", (event) => {
      for (const listener of this.#listeners) listener(tabId, { kind: "dialog", type: event.type, message: event.message, url: event.url });
      const told = new Set<ConnectionState>();
      for (const { connection, target } of this.#subscriptions.ofTab(tabId)) {
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
}
