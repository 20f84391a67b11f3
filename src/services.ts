import type { Browser } from "./cdp/browser.js";
import type { SessionPool } from "./cdp/session-pool.js";
import type { TabSession } from "./cdp/tab-session.js";
import type { AgentRecord, AgentRegistry } from "./agents/agent-registry.js";
import type { ClientManager, TabEntry } from "./clients/client-manager.js";
import type { ClusterView } from "./clients/cluster-view.js";
import { formatTarget, parseTarget } from "./target-id.js";
import { runAction, type ActionScope } from "./runtime/act.js";
import type { ActionOutcome } from "./runtime/action-watch.js";
import type { UploadFolder } from "./runtime/upload-folder.js";
import type { TabEmulation } from "./runtime/tab-emulation.js";
import type { NetworkLog } from "./events/network-log.js";
import type { NetworkStream } from "./events/network-stream.js";
import type { ClientRoutes } from "./clients/client-routes.js";
import type { ClientDownloads } from "./clients/client-downloads.js";
import type { PersistentClients } from "./clients/persistent-clients.js";
import type { Config } from "./config.js";
import type { EgressService } from "./egress/egress-service.js";
import { HubError } from "./errors.js";
import type { ConsoleStream } from "./events/console-stream.js";
import type { EventTopics } from "./events/event-topics.js";
import type { Screencasts } from "./events/screencast.js";
import type { TabTimelines } from "./timeline/tab-timelines.js";
import type { HubMetrics } from "./metrics.js";
import type { MethodName, Result, ValidatedParams } from "./protocol/types.js";
import type { CallContext, MethodDefinition, MethodTraits } from "./rpc/method.js";

/** The parts of the hub every method handler may use. */
export interface HubServices {
  config: Config;
  browser: Browser;
  pool: SessionPool;
  clients: ClientManager;
  agents: AgentRegistry;
  console: ConsoleStream;
  eventTopics: EventTopics;
  metrics: HubMetrics;
  /** Files callers upload, kept per tab until it closes. */
  uploads: UploadFolder;
  /** Each tab's emulation and network conditions, set again on its new session when the pool replaces one. */
  emulation: TabEmulation;
  /** Each tab's recent requests. */
  network: NetworkLog;
  /** network.subscribe: each tab's requests as they are sent and answered, to the connections that asked. */
  networkStream: NetworkStream;
  /** The routes of network.route, and the tabs they make intercept. */
  routes: ClientRoutes;
  /** Each client's downloads, in its folder under DATA_DIR. */
  downloads: ClientDownloads;
  /** Persistent clients (clients.configure): their state saved in DATA_DIR and restored after a restart. */
  persistent: PersistentClients;
  /** Live views of tabs (screencast.start): one Chrome screencast per watched tab. */
  screencasts: Screencasts;
  /** The egress policies of clients (clients.configure {policy}) and the proxies that enforce them. */
  egress: EgressService;
  /** Each tab's timeline (timeline.get, timeline.export): the calls on it and what its page did. */
  timelines: TabTimelines;
  /** Cluster (Redis): the whole cluster for the listings; absent when REDIS_URL is unset. */
  cluster?: ClusterView;
}

/** The context of one call to a hub method. */
export type HubCall = CallContext<HubServices>;

/** A hub method: its params and result are the OpenRPC document's, through the generated types. */
export interface HubMethod<M extends MethodName> extends MethodDefinition<HubServices, ValidatedParams<M>, Result<M>> {
  name: M;
}

/** Declares the hub method `name`, with its traits and its handler. */
export function defineMethod<M extends MethodName>(
  name: M,
  traits: MethodTraits,
  run: NoInfer<(params: ValidatedParams<M>, call: HubCall) => Promise<Result<M>>>,
): HubMethod<M> {
  return { name, traits, run };
}

/** The tab a target names (TARGET_NOT_FOUND unless the caller may see it) and its pooled session. */
export async function acquireTab(call: HubCall, target: string): Promise<{ entry: TabEntry; tab: TabSession }> {
  const entry = call.services.clients.resolve(target, call.connection);
  const tab = await call.services.pool.acquire(entry.tabId, call.budget);
  return { entry, tab };
}

/** The ready agent a target names: TARGET_NOT_FOUND unless the caller may see it, AGENT_UNAVAILABLE unless it is ready. */
export function readyAgent(call: HubCall, target: string): AgentRecord {
  const agent = connectedAgent(call, target);
  if (agent.state !== "ready") throw new HubError("AGENT_UNAVAILABLE", `the agent on ${target} has not said ready yet; retry shortly`);
  return agent;
}

/** The agent registered as `target`, ready or not; TARGET_NOT_FOUND unless the caller may see it, AGENT_UNAVAILABLE when none is. */
export function connectedAgent(call: HubCall, target: string): AgentRecord {
  const { clientId, tabId } = parseTarget(target);
  const { agents, clients, browser } = call.services;
  const agent = agents.get(target);
  const tabExists = browser.page(tabId) !== undefined && clients.ownerOf(tabId) === clientId;
  if (!clients.canSee(call.connection, clientId) || (!agent && !tabExists)) {
    throw new HubError("TARGET_NOT_FOUND", `no tab or agent ${target}; list them with clients.list`);
  }
  if (!agent) throw new HubError("AGENT_UNAVAILABLE", `no agent is connected on ${target}; open DevTools with the agent on that tab`);
  return agent;
}

/**
 * The client a call about a client (not a tab) acts for: the one asked for, else a scoped token's first client, else
 * DEFAULT_CLIENT_ID; FORBIDDEN when the caller's token does not reach it. `doing` names the act for the message.
 */
export function callerClient(call: HubCall, requested: string | undefined, doing: string): string {
  const clientId = requested ?? defaultClientOf(call.connection, call.services.config.defaultClientId);
  if (!call.services.clients.canSee(call.connection, clientId)) {
    throw new HubError("FORBIDDEN", `this token may not ${doing} for client ${clientId}; use one of its own clients`);
  }
  call.services.clients.users.use(clientId, call.connection.closed);
  return clientId;
}

/** The client a call acts for when it names none: the first of its token's clients, else DEFAULT_CLIENT_ID. */
export function defaultClientOf(connection: { scope: ReadonlySet<string> | null }, defaultClientId: string): string {
  return (connection.scope ? [...connection.scope][0] : undefined) ?? defaultClientId;
}

/** Runs an action (`act`'s element lookups and input) on the target's tab and answers what it did and set off. */
export async function actOn(
  call: HubCall,
  what: { target: string; method: MethodName; changes: "diff" | "none" },
  act: (scope: ActionScope) => Promise<void>,
): Promise<Result<"click">> {
  const { tab } = await acquireTab(call, what.target);
  const context = { budget: call.budget, pages: call.services.browser, method: what.method, changes: what.changes };
  const outcome = await runAction(tab, context, act);
  return actionAnswer(call, outcome);
}

/** An action's answer: ok, a navigation, a dialog, the pages it opened as the targets of their clients, and what changed. */
function actionAnswer(call: HubCall, outcome: ActionOutcome): Result<"click"> {
  const { openedTabIds, navigated, dialog, changes } = outcome;
  const opened = (openedTabIds ?? []).map((tabId) => formatTarget(call.services.clients.ownerOf(tabId), tabId));
  return {
    ok: true,
    ...(navigated ? { navigated } : {}),
    ...(dialog ? { dialog: dialog as NonNullable<Result<"click">["dialog"]> } : {}),
    ...(opened.length > 0 ? { opened } : {}),
    ...(changes ? { changes } : {}),
  };
}

/** What a tab shows now, as the navigations answer it: its URL and title (the listings learn them too). */
export async function shownPage(call: HubCall, tab: TabSession): Promise<{ url: string; title: string }> {
  const { browser } = call.services;
  const { targetInfo } = await browser.connection().send("Target.getTargetInfo", { targetId: tab.tabId }, { budget: call.budget });
  browser.notePage(targetInfo);
  return { url: targetInfo.url, title: targetInfo.title };
}
