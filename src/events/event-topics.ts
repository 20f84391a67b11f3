import { AGENT_NOTIFICATIONS, type AgentRecord, type AgentRegistry } from "../agents/agent-registry.js";
import type { ClientManager } from "../clients/client-manager.js";
import type { NotificationName, Notifications, ValidatedParams } from "../protocol/types.js";
import type { ConnectionState } from "../rpc/method.js";
import type { ConsoleStream } from "./console-stream.js";

/** The topics of events.subscribe. */
export type Topic = ValidatedParams<"events.subscribe">["topics"][number];

/**
 * Tab notifications: `tab.opened`, `tab.updated` and `tab.closed` to connections subscribed to the `tabs` topic that
 * may see the tab, and `tab.closed` to every connection subscribed to the tab's console (once per connection); agent
 * notifications (`agent.connected`, `agent.ready`, `agent.disconnected`, and `agent.activity`: tasks, status, pauses) to the `agents` topic; `client.opened` and
 * `client.closed` (a client's browser context made, or disposed) to the `clients` topic; what others publish (the
 * downloads) to theirs.
 */
export class EventTopics {
  #clients: ClientManager;
  #console: ConsoleStream;
  #topics = new Map<ConnectionState, ReadonlySet<Topic>>();

  constructor(clients: ClientManager, consoleStream: ConsoleStream, agents: AgentRegistry) {
    this.#clients = clients;
    this.#console = consoleStream;
    for (const [event, method] of AGENT_NOTIFICATIONS) {
      agents.on(event, (agent: AgentRecord) => {
        const { clientId: target, baseId: clientId, tabId } = agent;
        for (const connection of this.#watchers("agents", clientId)) connection.notify(method, { target, clientId, tabId });
      });
    }
    agents.on("activity", (agent, activity) => {
      const { clientId: target, baseId: clientId, tabId } = agent;
      const notice = { target, clientId, tabId, ...activity, at: Date.now() };
      for (const connection of this.#watchers("agents", clientId)) connection.notify("agent.activity", notice);
    });
    clients.contexts.on("opened", (clientId) => {
      for (const connection of this.#watchers("clients", clientId)) connection.notify("client.opened", { clientId });
    });
    clients.contexts.on("closed", (clientId, reason) => {
      for (const connection of this.#watchers("clients", clientId)) connection.notify("client.closed", { clientId, reason });
    });
    clients.on("tabOpened", (entry) => {
      const { target, clientId, tabId, url } = entry;
      for (const connection of this.#watchers("tabs", clientId)) connection.notify("tab.opened", { target, clientId, tabId, url });
    });
    clients.on("tabUpdated", ({ target, clientId, tabId, url, title }) => {
      for (const connection of this.#watchers("tabs", clientId)) connection.notify("tab.updated", { target, clientId, tabId, url, title });
    });
    clients.on("tabClosed", (entry, reason) => {
      const told = new Set([...this.#console.subscribersOf(entry.tabId), ...this.#watchers("tabs", entry.clientId)]);
      for (const connection of told) connection.notify("tab.closed", { target: entry.target, reason });
      this.#console.dropTab(entry.tabId);
    });
  }

  /** Tells the connections on `topic` that may see `clientId` (the downloads' `download.started` and `download.finished`). */
  publish<N extends NotificationName>(topic: Topic, clientId: string, notice: { method: N; params: Notifications[N] }): void {
    for (const connection of this.#watchers(topic, clientId)) connection.notify(notice.method, notice.params);
  }

  /** Sets the topics a connection listens to (replacing earlier ones) until it closes. */
  subscribe(connection: ConnectionState, topics: readonly Topic[]): void {
    if (!this.#topics.has(connection)) {
      connection.closed.addEventListener("abort", () => this.#topics.delete(connection), { once: true });
    }
    this.#topics.set(connection, new Set(topics));
  }

  #watchers(topic: Topic, clientId: string): ConnectionState[] {
    const watchers: ConnectionState[] = [];
    for (const [connection, topics] of this.#topics) {
      if (topics.has(topic) && this.#clients.canSee(connection, clientId)) watchers.push(connection);
    }
    return watchers;
  }
}
