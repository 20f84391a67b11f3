import { EventEmitter } from "node:events";
import type { AgentCalls } from "./agent-calls.js";

/** The state of a DevTools agent: registered, or ready for work. */
export type AgentState = "connected" | "ready";

/** What the hub can do with an agent's socket. */
export interface AgentLink {
  /** Closes the agent's socket (a newer registration of the same tab replaced it). */
  replace(): void;
  /** The hub's calls to the agent. */
  calls: AgentCalls;
}

/** One registered agent. */
export interface AgentRecord {
  /** The composite id it registered as, `base:tabId`. */
  clientId: string;
  baseId: string;
  tabId: string;
  state: AgentState;
  connectedAt: number;
  capabilities: unknown;
  link: AgentLink;
}

/** What AgentRegistry tells its listeners: an agent came, got ready or went, or sent a status frame of a running task. */
export interface AgentRegistryEvents {
  connected: [agent: AgentRecord];
  ready: [agent: AgentRecord];
  disconnected: [agent: AgentRecord];
  status: [agent: AgentRecord, frame: Record<string, unknown>];
}

/** The registry's lifecycle events and the notification each one is announced as (events.subscribe topic `agents`). */
export const AGENT_NOTIFICATIONS = [
  ["connected", "agent.connected"],
  ["ready", "agent.ready"],
  ["disconnected", "agent.disconnected"],
] as const;

/**
 * The agents connected now, by composite id. A tab that registers again replaces its old connection at once, and
 * the old socket's late close never removes the new one.
 */
export class AgentRegistry extends EventEmitter<AgentRegistryEvents> {
  #byId = new Map<string, AgentRecord>();

  constructor() {
    super();
    this.setMaxListeners(0);
  }

  /** Registers an agent, replacing (and closing) an older connection of the same composite id. */
  register(record: AgentRecord): void {
    const previous = this.#byId.get(record.clientId);
    this.#byId.set(record.clientId, record);
    if (previous && previous.link !== record.link) {
      previous.link.replace();
      this.emit("disconnected", previous);
    }
    this.emit("connected", record);
  }

  /** Marks an agent ready for work. */
  markReady(record: AgentRecord): void {
    if (this.#byId.get(record.clientId) !== record || record.state === "ready") return;
    record.state = "ready";
    this.emit("ready", record);
  }

  /** Forgets an agent whose socket closed, unless a newer connection has replaced it already. */
  remove(record: AgentRecord): void {
    if (this.#byId.get(record.clientId) !== record) return;
    this.#byId.delete(record.clientId);
    this.emit("disconnected", record);
  }

  /** Passes on a status frame of a registered agent's running task. */
  reportStatus(record: AgentRecord, frame: Record<string, unknown>): void {
    this.emit("status", record, frame);
  }

  /** The agent registered as this composite id. */
  get(clientId: string): AgentRecord | undefined {
    return this.#byId.get(clientId);
  }

  /** Every agent connected now. */
  all(): AgentRecord[] {
    return [...this.#byId.values()];
  }
}
