import type { Budget } from "../budget.js";
import type { AgentState } from "../agents/agent-registry.js";
import type { Caller, ClientEntry, TabEntry } from "./client-manager.js";

/** An agent connected to another instance, as that instance listed it (the fields of an AgentRecord that travel). */
export interface RemoteAgent {
  /** Its composite id, `base:tabId`. */
  clientId: string;
  baseId: string;
  tabId: string;
  state: AgentState;
  connectedAt: number;
}

/** The tabs and agents of the other instances. */
export interface RemoteTargets {
  tabs: TabEntry[];
  agents: RemoteAgent[];
}

/** What the listings (tabs.list, clients.list, GET /clients) ask of the cluster when REDIS_URL is set. */
export interface ClusterView {
  /** This instance's id in the cluster. */
  readonly instanceId: string;
  /** The page tabs of the whole cluster the caller may see, optionally of one client (read from Redis now). */
  tabs(caller: Caller, clientId: string | undefined, budget: Budget): Promise<TabEntry[]>;
  /** The clients of the whole cluster the caller may see, with their tabs and agents (read from Redis now). */
  clients(caller: Caller, budget: Budget): Promise<ClientEntry[]>;
  /** The other instances' tabs and agents as last read (refreshed in the background), for synchronous listings. */
  remote(): RemoteTargets;
}
