// The shapes of what the hub answers and sends, as far as the dashboard reads them (docs/reference.md has them all), and
// small readers of them.

/** The agent of a tab as tabs.list gives it: a state string, or an object that may say it is paused. */
export type TabAgent = null | "connected" | "ready" | { state?: string; paused?: boolean; connectedAt?: number };

/** One page tab (tabs.list). */
export interface Tab {
  target: string;
  clientId: string;
  tabId: string;
  url: string;
  title: string;
  agent: TabAgent;
  activatedAt: number | null;
  /** Present (true) while agent.pause holds the tab's agent. */
  agentPaused?: boolean;
  /** The task agent.run gave the tab's agent that is running now (its input cut at 500 characters). */
  agentTask?: { requestId: string; input: string; startedAt: number };
}

/** One client (clients.list): its agent and its tabs' targets. */
export interface ClientInfo {
  clientId: string;
  agent: null | { state: string; connectedAt: number; paused?: boolean };
  tabs: string[];
}

/** Calls counted by hub.stats, for the whole hub or one client (`calls`; `total` is read too). */
export interface CallFigures {
  calls?: number;
  total?: number;
  errors: number;
  perSecond: number;
}

/** hub.stats: each client's calls, the browser's state and, for a full token, the hub's own figures. */
export interface HubStats {
  uptimeMs: number;
  browser: "connected" | "down";
  /** The hub's calls at the top level (read when present; the hub gives them in `hub.calls`). */
  calls?: CallFigures;
  clients: Array<CallFigures & { clientId: string }>;
  hub?: {
    calls?: CallFigures;
    /** Open connections, by kind (orchestrator, agent, cdp, mcp), or their number. */
    connections: Record<string, number> | number;
    tabs: number;
    agents: number;
    sessions: number;
    rssBytes: number;
  };
}

/** A screencast.frame notification: a JPEG of the tab's viewport and where it stood. */
export interface ScreencastFrame {
  subscriptionId: string;
  target: string;
  data: string;
  deviceWidth: number;
  deviceHeight: number;
  pageScaleFactor: number;
  offsetTop: number;
  scrollOffsetX: number;
  scrollOffsetY: number;
  timestamp: number;
}

/** What an agent is doing: an agent.activity notification (topic `agents`). */
export interface AgentActivity {
  target: string;
  clientId: string;
  tabId: string;
  kind: "task" | "status" | "done" | "paused" | "resumed";
  requestId?: string;
  input?: unknown;
  status?: unknown;
  progress?: unknown;
  message?: unknown;
  /** kind done: whether the task ended without an error. */
  ok?: boolean;
  at: number;
}

/** An agent.connected, agent.ready or agent.disconnected notification. */
export interface AgentEvent {
  target: string;
  clientId: string;
  tabId: string;
}

/** A tab.opened notification (topic `tabs`). */
export interface TabOpened {
  target: string;
  clientId: string;
  tabId: string;
  url: string;
}

/** A tab.updated notification (topic `tabs`): the tab's new URL or title. */
export interface TabUpdated extends TabOpened {
  title: string;
}

/** A console.message notification (a ConsoleLine with its subscription). */
export interface ConsoleMessage {
  subscriptionId: string;
  target: string;
  level: "log" | "info" | "warn" | "error" | "debug";
  text: string;
  timestamp: number;
  source?: "console" | "exception" | "browser";
  url?: string;
  lineNumber?: number;
}

/** One request of network.list. */
export interface NetworkRequest {
  requestId: string;
  url: string;
  method: string;
  resourceType: string;
  state: string;
  startedAt: number;
  status?: number;
  durationMs?: number;
  encodedBytes?: number;
  errorText?: string;
}

/** A network.requests notification: requests of the subscribed tab sent or changed since the last one. */
export interface NetworkRequests {
  subscriptionId: string;
  target: string;
  requests: NetworkRequest[];
  missed?: number;
}

/** The parts of a snapshot answer the dashboard shows. */
export interface SnapshotResult {
  snapshotId: string;
  url: string;
  title: string;
  text: string;
}

/** What is known of a tab's agent: its state (`connected`, `ready`) and whether it is paused (null: not known). */
export interface AgentState {
  state: string;
  paused: boolean | null;
}

/** The agent of a tab of tabs.list (a state string, with `agentPaused` while paused; an object is read too); null when none. */
export function tabAgent(tab: Tab): AgentState | null {
  const agent = tab.agent;
  if (agent === null || agent === undefined) return null;
  const said = typeof agent === "object" && typeof agent.paused === "boolean" ? agent.paused : tab.agentPaused === true;
  return { state: typeof agent === "string" ? agent : (agent.state ?? "connected"), paused: said };
}

/** The client id of a target `clientId:tabId`. */
export function clientOf(target: string): string {
  const colon = target.indexOf(":");
  return colon < 0 ? target : target.slice(0, colon);
}

/** The calls of a figure: `calls`, or `total`. */
export function callCount(figures: CallFigures): number {
  return figures.calls ?? figures.total ?? 0;
}
