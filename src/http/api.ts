import { allows, type Need } from "../capabilities.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { v4 as uuidv4 } from "uuid";
import { ErrorCode, HubError } from "../errors.js";
import type { MethodName, Params, Result } from "../protocol/types.js";
import type { DrainGate } from "../rpc/drain-gate.js";
import { InflightTable } from "../rpc/inflight.js";
import type { ConnectionState } from "../rpc/method.js";
import type { Router } from "../rpc/router.js";
import type { HubServices } from "../services.js";
import { callerTrace } from "../tracing.js";
import { isRefusal, type AccessPolicy } from "../transport/access-policy.js";
import { whoOf, type Grant } from "../transport/auth.js";
import { clientSummaries } from "./client-summaries.js";
import { HttpError, readJsonBody, refusalError, sendError, sendJson } from "./http-io.js";
import { HttpLimits } from "./http-limits.js";
import { closeTab, openTab, pageContent, pageExecute, pageScreenshot } from "./page-routes.js";
import { runResponses } from "./responses-route.js";
import { sendDownload } from "./download-route.js";
import { uptimeMs } from "../version.js";

/** What the HTTP API needs: the hub's parts, the router its routes call methods through, who may come in, and the limits. */
export interface HttpApiOptions {
  services: HubServices;
  router: Router<HubServices>;
  /** The same policy as the WebSocket upgrades: Origin, Host, peer address, token. */
  policy: AccessPolicy;
  maxBodyBytes: number;
  maxInflight: number;
  ratePerSec: number;
  serverId: string;
  version: string;
  /** While the hub drains, /health answers 503 with `draining: true`, so a load balancer stops sending. */
  drain?: DrainGate;
}

/** One request as a route sees it. */
export interface RouteContext {
  body: Record<string, unknown>;
  match: RegExpMatchArray;
  connection: ConnectionState;
  grant: Grant;
  /** Calls a hub method as this request's caller. */
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>;
}

type Route = [method: string, path: RegExp, handler: (context: RouteContext) => Promise<unknown>];

/** The eval-server compatible HTTP API of docs/protocol.md section 7, on top of the JSON-RPC methods. */
export class HttpApi {
  #options: HttpApiOptions;
  #routes: Route[];
  #limits: HttpLimits;

  constructor(options: HttpApiOptions) {
    this.#options = options;
    this.#limits = new HttpLimits(options.maxInflight, options.ratePerSec);
    const { services } = options;
    this.#routes = [
      ["GET", /^\/status$/, async ({ grant }) => ({ server: this.#server(grant), clients: services.clients.clients(grant) })],
      ["GET", /^\/clients$/, async ({ grant }) => clientSummaries(services, grant)],
      ["GET", /^\/clients\/([^/]+)\/tabs$/, async ({ grant, match }) => clientTabs(services, grant, decodeURIComponent(match[1] ?? ""))],
      ["POST", /^\/tabs\/open$/, openTab],
      ["POST", /^\/tabs\/close$/, closeTab],
      ["POST", /^\/page\/content$/, pageContent],
      ["POST", /^\/page\/screenshot$/, pageScreenshot],
      ["POST", /^\/page\/execute$/, pageExecute],
      ["POST", /^\/v1\/responses$/, async (context) => runResponses(services, context)],
    ];
  }

  /** Answers one HTTP request; every failure becomes `{error: {code, message}}` with a real status. */
  handle(request: IncomingMessage, response: ServerResponse): void {
    this.#handle(request, response).catch((error: unknown) => sendError(response, error));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://hub.invalid");
    if (request.method === "GET" && url.pathname === "/health") {
      const draining = this.#options.drain?.isDraining ?? false;
      return sendJson(response, draining ? 503 : 200, {
        ok: !draining,
        browser: this.#options.services.browser.isUp ? "connected" : "down",
        uptimeMs: uptimeMs(),
        draining,
      });
    }
    if (request.method === "GET" && url.pathname === "/metrics") {
      const { scope, capabilities } = this.#authorize(request, url);
      requireCapability(capabilities, "admin", "/metrics");
      if (scope !== null)
        throw new HttpError(403, {
          code: ErrorCode.FORBIDDEN,
          message: "/metrics covers every client of the hub: it needs a full token (HUB_TOKEN, or a HUB_TOKENS entry with no scope)",
        });
      const { registry } = this.#options.services.metrics;
      response.writeHead(200, { "content-type": registry.contentType }).end(await registry.metrics());
      return;
    }
    const downloadId = request.method === "GET" ? /^\/downloads\/([^/]+)$/.exec(url.pathname)?.[1] : undefined;
    if (downloadId !== undefined)
      return sendDownload({ services: this.#options.services, grant: this.#authorize(request, url, "read") }, downloadId, response);
    const route = this.#routes.find(([method, path]) => method === request.method && path.test(url.pathname));
    if (!route)
      throw new HttpError(404, {
        code: 404,
        message: `no route ${String(request.method).slice(0, 10)} ${url.pathname.slice(0, 100)}; see docs/protocol.md section 7`,
      });
    // The GET routes are listings the router never sees, and /v1/responses looks for an agent before any call; the
    // other routes' calls are checked by the router, one by one.
    const need: Need = request.method === "GET" ? "read" : url.pathname === "/v1/responses" ? "agents" : "connection";
    const grant = this.#authorize(request, url, need);
    const done = this.#limits.start(grant.key ?? `peer:${request.socket.remoteAddress ?? "unknown"}`);
    try {
      const body = request.method === "POST" ? await readJsonBody(request, this.#options.maxBodyBytes) : {};
      const connection = httpConnection(request, response, grant);
      const call = async <M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> =>
        (await this.#options.router.invoke(method, params, connection)) as Result<M>;
      const match = url.pathname.match(route[1]) as RegExpMatchArray;
      sendJson(response, 200, await route[2]({ body, match, connection, grant, call }));
    } finally {
      done();
    }
  }

  #authorize(request: IncomingMessage, url: URL, need: Need = "connection"): Grant {
    const decision = this.#options.policy.decide(request, url, "orchestrator");
    if (isRefusal(decision)) throw refusalError(decision);
    requireCapability(decision.grant.capabilities, need, url.pathname.slice(0, 100));
    return decision.grant;
  }

  /** The hub's own record; a scoped token counts only its own clients' agents. */
  #server(grant: Grant): Record<string, unknown> {
    const { services, serverId, version } = this.#options;
    const agents = services.agents.all().filter((agent) => services.clients.canSee(grant, agent.baseId)).length;
    return { id: serverId, version, uptimeMs: uptimeMs(), browser: services.browser.isUp ? "connected" : "down", agents };
  }
}

/** Refuses (403 FORBIDDEN, naming the capability) a request its token's capabilities do not cover. */
function requireCapability(capabilities: Grant["capabilities"], need: Need, what: string): void {
  if (allows(capabilities, need)) return;
  throw new HttpError(403, {
    code: ErrorCode.FORBIDDEN,
    message: `${what} needs the capability "${need}", which this token does not have; the hub's operator grants capabilities in ACCESS_FILE`,
    data: { capability: need },
  });
}

function clientTabs(services: HubServices, grant: Grant, baseClientId: string): unknown {
  const client = clientSummaries(services, grant).find((summary) => summary.id === baseClientId);
  if (!client)
    throw new HttpError(404, {
      code: ErrorCode.TARGET_NOT_FOUND,
      message: `no client ${baseClientId.slice(0, 200)}; list them with GET /clients`,
    });
  return { baseClientId, tabCount: client.tabCount, tabs: client.tabs };
}

function httpConnection(request: IncomingMessage, response: ServerResponse, grant: Grant): ConnectionState {
  const closed = new AbortController();
  const inflight = new InflightTable();
  // A caller that hangs up before its answer cancels the work it asked for.
  response.once("close", () => {
    if (response.writableFinished) return;
    closed.abort();
    inflight.cancelAll(new HubError("CANCELLED", "the HTTP caller went away"));
  });
  return {
    id: uuidv4(),
    scope: grant.scope,
    capabilities: grant.capabilities,
    peer: request.socket.remoteAddress ?? "unknown",
    who: whoOf(grant),
    kind: "http",
    ...callerTrace(request.headers),
    inflight,
    closed: closed.signal,
    notify: () => false,
  };
}
