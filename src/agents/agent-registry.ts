import { EventEmitter } from "node:events";
import type { Budget } from "../budget.js";
import type { Notifications } from "../protocol/types.js";
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
  /** Set while agent.pause holds the agent: since when, and why. */
  paused?: { since: number; reason?: string };
  /** The task agent.run gave it that is running now. */
  task?: { requestId: string; input: string; startedAt: number };
}

/** Something an agent did that the dashboard shows: notification agent.activity, less what names the agent and when. */
export type AgentActivity = Omit<Notifications["agent.activity"], "target" | "clientId" | "tabId" | "at">;

/** What AgentRegistry tells its listeners: an agent came, got ready or went, or sent a status frame of a running task. */
export interface AgentRegistryEvents {
  connected: [agent: AgentRecord];
  ready: [agent: AgentRecord];
  disconnected: [agent: AgentRecord];
  status: [agent: AgentRecord, frame: Record<string, unknown>];
  activity: [agent: AgentRecord, activity: AgentActivity];
  resumed: [agent: AgentRecord];
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
      this.#release(previous);
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
    this.#release(record);
    this.emit("disconnected", record);
  }

  /** Lets what waited on a gone agent's pause go on (and find it gone). */
  #release(record: AgentRecord): void {
    if (!record.paused) return;
    delete record.paused;
    this.emit("resumed", record);
  }

  /** Holds the agent's calls (agent.pause); false when it was paused already. */
  pause(record: AgentRecord, reason: string | undefined): boolean {
    if (record.paused) return false;
    record.paused = { since: Date.now(), ...(reason === undefined ? {} : { reason }) };
    this.emit("activity", record, { kind: "paused", ...(reason === undefined ? {} : { message: reason }) });
    return true;
  }

  /** Lets the agent's held calls go on (agent.resume); false when it was not paused. */
  resume(record: AgentRecord): boolean {
    if (!record.paused) return false;
    delete record.paused;
    this.emit("resumed", record);
    this.emit("activity", record, { kind: "resumed" });
    return true;
  }

  /**
   * Undefined when the agent is not paused; else a promise that settles when it is resumed (or gone), or rejects with
   * the budget's reason (TIMEOUT, CANCELLED) if that comes first.
   */
  whenResumed(record: AgentRecord, budget: Budget): Promise<void> | undefined {
    if (!record.paused) return undefined;
    return new Promise((resolve, reject) => {
      let stopWaiting = (): void => {};
      const onResumed = (resumed: AgentRecord): void => {
        if (resumed !== record) return;
        this.off("resumed", onResumed);
        stopWaiting();
        resolve();
      };
      this.on("resumed", onResumed);
      stopWaiting = budget.onEnd(() => {
        this.off("resumed", onResumed);
        reject(budget.reason ?? new Error("the call's budget ended"));
      });
    });
  }

  /** Records a task agent.run gave the agent, and its end, for clients.list and the agents topic. */
  reportTask(record: AgentRecord, task: { requestId: string; input: unknown; ok?: boolean }): void {
    if (task.ok === undefined) {
      const input = (typeof task.input === "string" ? task.input : JSON.stringify(task.input ?? "")).slice(0, 500);
      record.task = { requestId: task.requestId, input, startedAt: Date.now() };
      this.emit("activity", record, { kind: "task", requestId: task.requestId, input });
      return;
    }
    if (record.task?.requestId === task.requestId) delete record.task;
    this.emit("activity", record, { kind: "done", requestId: task.requestId, ok: task.ok });
  }

  /** Passes on a status frame of a registered agent's running task. */
  reportStatus(record: AgentRecord, frame: Record<string, unknown>): void {
    this.emit("status", record, frame);
    const { status, progress, message } = frame;
    const about = frame.requestId ?? frame.evaluationId;
    const requestId = typeof about === "string" ? about : record.task?.requestId;
    this.emit("activity", record, { kind: "status", ...(requestId === undefined ? {} : { requestId }), status, progress, message });
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
