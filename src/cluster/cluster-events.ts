import { AGENT_NOTIFICATIONS, type AgentRecord } from "../agents/agent-registry.js";
import type { TabEntry } from "../clients/client-manager.js";
import type { Topic } from "../events/event-topics.js";
import { relayNotification, type ConnectionState } from "../rpc/method.js";
import type { HubServices } from "../services.js";
import type { EventMessage } from "./messages.js";
import type { ClusterRegistry } from "./registry.js";
import { SerialRunner } from "./serial-runner.js";

/** What the cluster's events need: the hub's parts, the registry, and the cluster's own rules. */
export interface ClusterEventsOptions {
  services: HubServices;
  registry: ClusterRegistry;
  /** Brings the registry up to date; an event goes out only after it, so a watcher that acts on it finds its target. */
  relist(): Promise<void>;
  /** Whether an agent was closed here because it reconnected to another instance (its disconnect is no news). */
  isEvicted(agent: AgentRecord): boolean;
  timeoutMs: number;
}

/**
 * events.subscribe across the cluster: this instance's tab and agent events go to every other instance, and the
 * other instances' events reach this instance's watchers (its own events reach them through EventTopics as before).
 */
export class ClusterEvents {
  #options: ClusterEventsOptions;
  #watchers = new Map<ConnectionState, ReadonlySet<Topic>>();
  #outbox: EventMessage[] = [];
  #publisher = new SerialRunner(
    () => this.#publish(),
    () => {},
  );
  #unlisten: (() => void)[] = [];

  constructor(options: ClusterEventsOptions) {
    this.#options = options;
    const { agents, clients } = options.services;
    for (const [event, method] of AGENT_NOTIFICATIONS) {
      const listener = (agent: AgentRecord): void => {
        if (options.isEvicted(agent)) return;
        this.#queue({
          topic: "agents",
          clientId: agent.baseId,
          method,
          params: { target: agent.clientId, clientId: agent.baseId, tabId: agent.tabId },
        });
      };
      agents.on(event, listener);
      this.#unlisten.push(() => agents.off(event, listener));
    }
    const opened = ({ target, clientId, tabId, url }: TabEntry): void =>
      this.#queue({ topic: "tabs", clientId, method: "tab.opened", params: { target, clientId, tabId, url } });
    const updated = ({ target, clientId, tabId, url, title }: TabEntry): void =>
      this.#queue({ topic: "tabs", clientId, method: "tab.updated", params: { target, clientId, tabId, url, title } });
    const closed = (entry: TabEntry, reason: string): void =>
      this.#queue({ topic: "tabs", clientId: entry.clientId, method: "tab.closed", params: { target: entry.target, reason } });
    clients.on("tabOpened", opened);
    clients.on("tabUpdated", updated);
    clients.on("tabClosed", closed);
    this.#unlisten.push(
      () => clients.off("tabOpened", opened),
      () => clients.off("tabUpdated", updated),
      () => clients.off("tabClosed", closed),
    );
  }

  /** Records the topics a connection listens to (replacing earlier ones) until it closes. */
  watch(connection: ConnectionState, topics: readonly Topic[]): void {
    if (!this.#watchers.has(connection)) {
      connection.closed.addEventListener("abort", () => this.#watchers.delete(connection), { once: true });
    }
    this.#watchers.set(connection, new Set(topics));
  }

  /** Sends another instance's event to the watchers of its topic that may see its client, except those `skip` names. */
  deliver(message: EventMessage, skip: (connection: ConnectionState) => boolean): void {
    for (const [connection, topics] of this.#watchers) {
      if (!topics.has(message.topic) || skip(connection)) continue;
      if (connection.scope === null || connection.scope.has(message.clientId))
        relayNotification(connection, message.method, message.params);
    }
  }

  /** Stops listening to this instance's events. */
  stop(): void {
    for (const unlisten of this.#unlisten.splice(0)) unlisten();
  }

  // Client contexts are each instance's own (one Chrome each): client.opened/closed stay on their instance.
  #queue(event: Omit<EventMessage, "type" | "from">): void {
    this.#outbox.push({ type: "event", from: this.#options.registry.instanceId, ...event });
    void this.#publisher.request();
  }

  async #publish(): Promise<void> {
    const batch = this.#outbox.splice(0);
    await this.#options.relist();
    const { registry, timeoutMs } = this.#options;
    await Promise.allSettled(batch.map((message) => registry.broadcast(message, timeoutMs)));
  }
}
