import http from "node:http";
import type { Duplex } from "node:stream";
import { v4 as uuidv4 } from "uuid";
import { WebSocketServer, type WebSocket } from "ws";
import { closeAll, listen } from "./http/server-sockets.js";
import { Browser } from "./cdp/browser.js";
import { SessionPool } from "./cdp/session-pool.js";
import { AgentRegistry } from "./agents/agent-registry.js";
import { ClientManager } from "./clients/client-manager.js";
import { limitPopups } from "./clients/popup-quota.js";
import { tokenPolicyOf, type Config } from "./config.js";
import { ConsoleStream } from "./events/console-stream.js";
import { EventTopics } from "./events/event-topics.js";
import { HttpApi } from "./http/api.js";
import { log } from "./log.js";
import { HubMetrics } from "./metrics.js";
import { METHODS } from "./methods/index.js";
import type { MethodDefinition } from "./rpc/method.js";
import { loadOpenRpc, ParamsValidator } from "./rpc/params-validator.js";
import { Router } from "./rpc/router.js";
import { UploadFolder } from "./runtime/upload-folder.js";
import { watchPageTitles } from "./runtime/page-titles.js";
import type { HubServices } from "./services.js";
import { openAgentPeer } from "./agents/agent-peer.js";
import { AccessPolicy } from "./transport/access-policy.js";
import { Authenticator, callerOf } from "./transport/auth.js";
import { ConnectionCaps } from "./transport/connection-caps.js";
import { Heartbeat } from "./transport/heartbeat.js";
import { RpcPeer } from "./transport/rpc-peer.js";
import { ResumeDoor } from "./transport/resume-door.js";
import { ResumeRegistry } from "./transport/resume-registry.js";
import { answerCdpJson, cdpClientOf, openCdpProxy, wantsCdpJson } from "./cdp-front/cdp-endpoint.js";
import { EphemeralQuota } from "./cdp-front/ephemeral-quota.js";
import { McpFront, type McpFrontOptions } from "./mcp/mcp-front.js";
import { UiSessions } from "./transport/ui-sessions.js";
import { UiFront } from "./http/ui-front.js";
import { Screencasts } from "./events/screencast.js";
import { TabEmulation } from "./runtime/tab-emulation.js";
import { navigateTab } from "./runtime/navigate-tab.js";
import { NetworkLog } from "./events/network-log.js";
import { NetworkStream } from "./events/network-stream.js";
import { ClientRoutes } from "./clients/client-routes.js";
import { ProxyAuth } from "./clients/proxy-auth.js";
import { EgressService } from "./egress/egress-service.js";
import { WebRtcCheck } from "./cdp/webrtc-check.js";
import { callerTrace } from "./tracing.js";
import { watchEgress } from "./egress-events.js";
import { ClientStore } from "./clients/client-store.js";
import { adoptClients } from "./clients/adopt-contexts.js";
import { watchAbandonedClients } from "./clients/abandon-clients.js";
import type { AbandonWatch } from "./clients/abandon-watch.js";
import { PersistentClients } from "./clients/persistent-clients.js";
import { FileStates, NoStates } from "./clients/state-store.js";
import { auditDownload } from "./clients/download-audit.js";
import { globMatcher } from "./runtime/url-matcher.js";
import { ClientDownloads, type DownloadNotice } from "./clients/client-downloads.js";
import { hubTools } from "./mcp/tools.js";
import { decideUpgrade, refuseUpgrade } from "./transport/upgrade.js";
import { DrainGate } from "./rpc/drain-gate.js";
import { HubDrain, type DrainOutcome } from "./transport/drain.js";
import { HUB_VERSION, PROTOCOL_VERSION } from "./version.js";
import { TabTimelines } from "./timeline/tab-timelines.js";
import { watchTimelines } from "./timeline/timeline-events.js";
import { TimelineCalls } from "./timeline/timeline-calls.js";
import { TimelinePictures } from "./timeline/timeline-pictures.js";

/** A running hub. */
export interface Hub {
  /** The port it listens on (useful with PORT=0). */
  port: number;
  /** The second HTTP API port (API_PORT), if any. */
  apiPort: number | null;
  /** ws://host:port */
  url: string;
  services: HubServices;
  /**
   * Drains (SIGTERM, SIGINT): refuses new connections and calls, tells every peer (`hub.draining`), lets the calls in
   * flight finish within DRAIN_TIMEOUT_MS or until `cutShort` aborts, then cancels the rest; call stop() after it.
   */
  drain(cutShort?: AbortSignal): Promise<DrainOutcome>;
  /**
   * Graceful shutdown: sockets closed with 1001, in-flight calls cancelled, sessions detached, the embedded Chrome
   * stopped (an external one keeps the clients' contexts and tabs for the next hub).
   */
  stop(): Promise<void>;
}

// Messages kept per tab for console.list and replay.
const CONSOLE_BUFFER_SIZE = 1_000;
// What one tab's console buffer may hold: a page that logs huge messages costs bounded memory.
const CONSOLE_BUFFER_BYTES = 4 * 1024 * 1024;
// The requests each tab's network log keeps (network.list, network.get, network.har): the newest this many.
const NETWORK_LOG_SIZE = 500;
// The methods as the router takes them: a list, each with its name.
const HUB_METHODS: readonly MethodDefinition<HubServices>[] = Object.values(METHODS);

/** Builds every part of the hub, connects to Chrome and starts listening. */
export async function startHub(config: Config): Promise<Hub> {
  const services = buildServices(config);
  await services.browser.start();
  // Clients nothing uses for CLIENT_ABANDON_MS (a caller that crashed or forgot its tabs) have what they hold closed.
  const abandoned = watchAbandonedClients({ ...services, abandonMs: config.clientAbandonMs });
  const contract = loadOpenRpc();
  const validator = new ParamsValidator(contract);
  // Cluster (Redis): loaded only with REDIS_URL; its methods forward calls for targets other instances own.
  const cluster = config.redisUrl
    ? await (await import("./cluster/cluster.js")).joinCluster({ config, services, validator, methods: HUB_METHODS })
    : null;
  if (cluster) services.cluster = cluster;
  const methods = cluster?.methods ?? HUB_METHODS;
  const drain = new HubDrain(new DrainGate(), config.drainTimeoutMs);
  const [observer, hook] = [drain.gate.observe(services.metrics), timelineHook(config, services)];
  const router = new Router({ methods, services, validator, ...config, observer, hook, drain: drain.gate });
  // The DevTools client sends its own calls without "jsonrpc". An agent's calls serve the tasks running on it: a drain
  // waits for them and does not refuse them.
  const agentRouter = new Router({ methods, services, validator, ...config, allowMissingVersion: true, observer, hook });
  const sessions = new UiSessions();
  const policy = accessPolicy(config, sessions);
  const heartbeat = new Heartbeat(config.heartbeatIntervalMs);
  const sockets = new Set<WebSocket>();
  const serverId = uuidv4();
  const hubInfo = { serverId, version: HUB_VERSION, drain: drain.gate };
  const api = new HttpApi({ services, router, policy, maxBodyBytes: config.maxPayloadBytes, ...config, ...hubInfo });
  const mcp = new McpFront({ services, router, tools: hubTools(contract), policy, version: HUB_VERSION, ...mcpLimits(config) });
  const ui = new UiFront({ policy, sessions });
  const server = http.createServer(routeRequests({ api, mcp, ui, services, policy, drain }));
  // Old eval-server deployments served the HTTP API on a port of its own.
  const apiServer = config.apiPort === null ? null : http.createServer(routeApiRequests(api, drain));
  const resumes = new ResumeRegistry(config.resume);
  // Cluster (Redis): a dropped session can be resumed through any instance; its frames run on the one that keeps it.
  cluster?.serveSessions({ router, resumes });
  acceptUpgrades(server, { services, policy, router, agentRouter, heartbeat, sockets, serverId, drain, resumes });
  warnIfOpen(policy, config);
  let port: number;
  let apiPort: number | null;
  try {
    port = await listen(server, config.host, config.port);
    apiPort = apiServer && config.apiPort !== null ? await listen(apiServer, config.host, config.apiPort) : null;
  } catch (error) {
    abandoned.stop();
    // Cluster (Redis): a hub that cannot listen leaves, so its Redis connections do not keep the process alive.
    await cluster?.leave();
    throw error;
  }
  log.info("tabwire is listening", { url: `ws://${config.host}:${port}/rpc` });
  // OpenTelemetry (OTEL_EXPORTER_OTLP_ENDPOINT): a span per call from the first one; nothing at all without it.
  // The SDK and its exporters are loaded only then: a hub without an endpoint never pays for them.
  const traces = config.traces ? (await import("./trace-export.js")).startTraceExport(config.traces) : null;
  cluster?.announce(`ws://${config.host}:${port}`);
  const stop = async (): Promise<void> => {
    // Before anything goes: the persistent clients' state as it is now.
    await services.persistent.saveAll();
    await cluster?.leave();
    heartbeat.stop();
    server.close();
    apiServer?.close();
    apiServer?.closeAllConnections();
    await closeAll(sockets);
    resumes.closeAll();
    await mcp.closeAll();
    await stopParts(services, abandoned);
    server.closeAllConnections();
    await traces?.stop();
  };
  return { port, apiPort, url: `ws://${config.host}:${port}`, services, drain: (cutShort) => drain.run(cutShort), stop };
}

/** Stops the hub's parts once its doors are closed: sessions detached, proxies closed, Chrome stopped, files removed. */
async function stopParts(services: HubServices, abandoned: AbandonWatch): Promise<void> {
  abandoned.stop();
  await Promise.all([services.pool.detachAll(), services.egress.closeAll()]);
  await services.browser.stop();
  await services.uploads.removeAll();
  await services.downloads.removeAll();
}

/** Writes every call on a tab into its timeline (TIMELINE_ENABLED), with pictures of actions (TIMELINE_PICTURES=on). */
function timelineHook(config: Config, services: HubServices): TimelineCalls {
  const pictures = config.timeline.pictures ? new TimelinePictures(services.pool, services.screencasts) : null;
  return new TimelineCalls(services.timelines, pictures);
}

/** Says at start when the hub lets in more than token holders. */
function warnIfOpen(policy: AccessPolicy, config: Config): void {
  if (policy.isWideOpen("orchestrator"))
    log.warn("ALLOW_OPEN=true and no HUB_TOKEN or HUB_TOKENS set: every peer that reaches this hub can drive its browser");
  else if (config.tokens.length === 0) log.warn("no HUB_TOKEN or HUB_TOKENS set: the hub accepts loopback peers only");
}

/** Sends each HTTP request to its front: /mcp, the dashboard (/ui), CDP discovery (/cdp/json, /json/version), else the HTTP API. */
function routeRequests(fronts: {
  api: HttpApi;
  mcp: McpFront;
  ui: UiFront;
  services: HubServices;
  policy: AccessPolicy;
  drain: HubDrain;
}): http.RequestListener {
  const { api, mcp, ui, services, policy, drain } = fronts;
  return (request, response) => {
    const url = new URL(request.url ?? "/", "http://hub.invalid");
    if (drain.refuseRequest(url, response)) return;
    if (McpFront.wants(url)) mcp.handle(request, response, url);
    else if (UiFront.wants(url)) ui.handle(request, response, url);
    else if (wantsCdpJson(url)) void answerCdpJson({ request, response, url }, { services, policy });
    else api.handle(request, response);
  };
}

/** The HTTP API alone (API_PORT), refused while the hub drains as on the main port. */
function routeApiRequests(api: HttpApi, drain: HubDrain): http.RequestListener {
  return (request, response) => {
    if (!drain.refuseRequest(new URL(request.url ?? "/", "http://hub.invalid"), response)) api.handle(request, response);
  };
}

/** Who may come in: the tokens, the agent keys, the operator's allowlists and the failed-authentication limits. */
function accessPolicy(config: Config, sessions: UiSessions): AccessPolicy {
  const { allowedOrigins, allowedHosts, host, allowOpen } = config;
  return new AccessPolicy({
    ...{ tokens: new Authenticator(config.tokens), agentKeys: new Authenticator(config.agentKeys), sessions },
    ...{ allowedOrigins, allowedHosts, host, allowOpen },
    failureLimits: { perSourcePerMinute: config.authFailuresPerMin, globalPerMinute: config.authFailuresGlobalPerMin },
  });
}

/** The limits of the MCP front: the same as /rpc's, and how long a session may idle. */
function mcpLimits(config: Config): Pick<McpFrontOptions, "maxBodyBytes" | "maxInflight" | "ratePerSec" | "idleMs"> {
  const { maxPayloadBytes: maxBodyBytes, maxInflight, ratePerSec, mcpSessionIdleMs: idleMs } = config;
  return { maxBodyBytes, maxInflight, ratePerSec, idleMs };
}

/** The hub's parts, before Chrome is connected. */
function buildServices(config: Config): HubServices {
  const browser = new Browser(config);
  const pool = new SessionPool(browser, { maxSessions: config.maxSessions, dialogPolicy: config.dialogPolicy });
  const agents = new AgentRegistry();
  // With CDP_URL the clients' contexts outlive the hub: written down in DATA_DIR for the next hub to adopt.
  const store = config.cdpUrl === null ? null : new ClientStore(config.dataDir);
  const clientOptions = { defaultClientId: config.defaultClientId, clientIdleMs: config.clientIdleMs };
  // A request must pass every policy of its client: its tokens' (ACCESS_FILE) and the ones it set itself.
  const webRtc = config.cdpUrl === null ? null : new WebRtcCheck(browser);
  const egress = new EgressService({
    hosts: config.egressHosts,
    tokenPolicies: (clientId) => tokenPolicyOf(config, clientId),
    ...(webRtc ? { whyUnenforceable: () => webRtc.whyNot() } : {}),
  });
  const clients = new ClientManager(browser, agents, { ...clientOptions, proxies: egress, ...(store ? { record: store } : {}) });
  clients.contexts.on("closed", (clientId, reason) => reason !== "browser" && egress.forget(clientId));
  limitPopups(browser, clients, config.maxTabsPerClient);
  watchPageTitles(pool, browser);
  const consoleStream = new ConsoleStream(pool, CONSOLE_BUFFER_SIZE, CONSOLE_BUFFER_BYTES);
  const eventTopics = new EventTopics(clients, consoleStream, agents);
  const metrics = new HubMetrics({ browser, pool, console: consoleStream });
  clients.contexts.on("closed", (clientId) => metrics.clientCalls.forget(clientId));
  const uploads = new UploadFolder(browser, config.maxUploadBytes);
  // The network log first: its attach step turns the Network domain on, which the emulation's conditions need.
  const network = new NetworkLog(pool, browser, NETWORK_LOG_SIZE);
  const networkStream = new NetworkStream(network, browser);
  const emulation = new TabEmulation(pool, browser);
  const routes = new ClientRoutes({ pool, browser, clients }, config.maxRoutesPerClient);
  watchEgress({ egress, network, clients, eventTopics });
  new ProxyAuth({ pool, browser, clients, routes }, (clientId) => egress.credentialsOf(clientId));
  if (store)
    adoptClients({
      store,
      browser,
      clients,
      routes,
      emulation,
      matcherOf: (url) => globMatcher(url, { method: "network.route", path: "/url" }),
    });
  const { dataDir, maxDownloadBytes: maxBytes, downloadTtlMs: ttlMs } = config;
  const timelines = new TabTimelines(config.timeline, clients);
  const timelineEvents = watchTimelines({ timelines, browser, clients, console: consoleStream, network, agents });
  const notify: DownloadNotice = (clientId, notice, tabId) => {
    auditDownload(clientId, notice);
    eventTopics.publish("downloads", clientId, notice);
    timelineEvents.download(notice, tabId);
  };
  const downloads = new ClientDownloads(browser, clients, { embedded: config.cdpUrl === null, dataDir, maxBytes, ttlMs, notify });
  const persistent = new PersistentClients({
    ...{ clients, browser, pool, maxBytes: config.maxPersistedBytes, intervalMs: config.persistIntervalMs },
    // In a cluster the states live in Redis: the cluster gives its store when it joins.
    store: config.redisUrl === null ? new FileStates(dataDir) : new NoStates(),
    notify: (clientId, params) => eventTopics.publish("tabs", clientId, { method: "tab.restored", params }),
    egress,
    loadPage: async (tabId, url, budget) => navigateTab(await pool.acquire(tabId, budget), { url, waitUntil: "domcontentloaded" }, budget),
  });
  return {
    ...{ config, browser, pool, clients, agents, console: consoleStream, eventTopics, metrics },
    ...{ uploads, emulation, network, networkStream, routes, downloads, persistent, screencasts: new Screencasts(browser) },
    ...{ egress, timelines },
  };
}

/** What taking WebSocket upgrades needs: the parts, who may come in, the two routers, and the open sockets. */
interface UpgradeParts {
  services: HubServices;
  policy: AccessPolicy;
  router: Router<HubServices>;
  agentRouter: Router<HubServices>;
  heartbeat: Heartbeat;
  sockets: Set<WebSocket>;
  serverId: string;
  drain: HubDrain;
  resumes: ResumeRegistry;
}

/** Takes WebSocket upgrades on /rpc (orchestrators) and / or /agent (agents), each checked before the 101. */
function acceptUpgrades(server: http.Server, parts: UpgradeParts): void {
  const { services, policy, heartbeat, sockets, drain } = parts;
  const { config, metrics } = services;
  const caps = new ConnectionCaps(config.maxConnections, config.maxConnectionsPerIp);
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxPayloadBytes, perMessageDeflate: false });
  const ephemeral = new EphemeralQuota(config.maxEphemeralClientsPerToken);
  const resumeDoor = new ResumeDoor(parts.resumes, wss);
  server.on("upgrade", (request, socket, head) => {
    // Node takes its own error listener off a socket it hands to "upgrade": a peer that resets it must not end the hub.
    socket.on("error", (error) => log.debug("an upgrading socket failed", { error: error.message }));
    if (drain.gate.isDraining) return refuseUpgrade(socket, drain.upgradeRefusal());
    const decision = decideUpgrade(request, policy);
    if ("status" in decision) return refuseUpgrade(socket, decision);
    const cdpClient =
      decision.endpoint === "cdp" ? cdpClientOf(decision.grant, new URL(request.url ?? "/", "http://hub.invalid"), services) : null;
    if (cdpClient !== null && "status" in cdpClient) return refuseUpgrade(socket, cdpClient);
    if (cdpClient?.ephemeral && !holdEphemeralPlace(socket, ephemeral, decision.grant.key ?? "")) return;
    const slot = caps.open(decision.peer);
    if (typeof slot !== "function") {
      metrics.connectionRefused(slot.reason);
      return refuseUpgrade(socket, { status: 503, message: slot.message });
    }
    // Given back when the socket closes, before or after the upgrade completes.
    socket.once("close", slot);
    wss.handleUpgrade(request, socket, head, (ws) => {
      // Before any frame is read: a malformed frame is an "error" event, and an unheard one would end the process.
      ws.on("error", (error) => log.debug("a WebSocket peer sent a bad frame", { endpoint: decision.endpoint, error: error.message }));
      sockets.add(ws);
      const closed = metrics.connectionOpened(decision.endpoint === "rpc" ? "orchestrator" : decision.endpoint);
      ws.on("close", () => {
        sockets.delete(ws);
        closed();
      });
      heartbeat.track(ws);
      const limits = { highWaterBytes: config.sendHighWaterBytes, slowReaderTimeoutMs: config.slowReaderTimeoutMs, peer: decision.peer };
      if (decision.endpoint === "rpc") {
        // The caller's trace context, read once: the connection's calls are its children, resumable or not.
        const trace = callerTrace(request.headers);
        const resumable = resumeDoor.open(request, { ...decision, trace });
        return drain.track(new RpcPeer(ws, { router: parts.router, ...callerOf(decision.grant), ...trace, ...limits, resumable }), ws);
      }
      if (cdpClient !== null) {
        const takePlace = (): (() => void) | null => ephemeral.take(decision.grant.key ?? "");
        return openCdpProxy(ws, { ...cdpClient, takePlace }, services);
      }
      openAgentPeer(ws, {
        ...limits,
        router: parts.agentRouter,
        registry: services.agents,
        checkKey: (secret) => policy.checkAgentKey(decision.peer, secret),
        authKey: config.authKey,
        legacyAuth: config.agentLegacyAuth,
        grant: decision.authenticated ? decision.grant : null,
        registerTimeoutMs: config.agentRegisterTimeoutMs,
        refusal: (baseId, tabId, keyScope) => services.clients.refusalOfAgent(baseId, tabId, keyScope),
        serverId: parts.serverId,
        version: PROTOCOL_VERSION,
        onPeer: (peer) => drain.track(peer, ws),
      });
    });
  });
}

/** Takes a place of the token's ephemeral /cdp clients until `socket` closes; false, and the upgrade refused, past the quota. */
function holdEphemeralPlace(socket: Duplex, ephemeral: EphemeralQuota, key: string): boolean {
  const place = ephemeral.take(key);
  if (place === null) {
    const message = `this token holds ${ephemeral.max} ephemeral /cdp clients (MAX_EPHEMERAL_CLIENTS_PER_TOKEN); close one first`;
    refuseUpgrade(socket, { status: 429, message });
    return false;
  }
  socket.once("close", place);
  return true;
}
