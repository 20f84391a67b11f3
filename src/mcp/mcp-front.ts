import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { toWebRequest } from "@modelcontextprotocol/node";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { ErrorCode, HubError } from "../errors.js";
import { HttpError, readJsonBody, refusalError, sendError } from "../http/http-io.js";
import { HttpLimits } from "../http/http-limits.js";
import type { Router } from "../rpc/router.js";
import type { HubServices } from "../services.js";
import { isRefusal, type AccessPolicy } from "../transport/access-policy.js";
import type { Grant } from "../transport/auth.js";
import { ClientTools, type ClientToolsOwner } from "./client-tools.js";
import type { McpExchange, OpenedClient } from "./exchange.js";
import { LegacySessions } from "./legacy-sessions.js";
import { ModernLane } from "./modern-lane.js";
import { capsOf, type HubTool } from "./tools.js";

/** What the MCP front needs: the hub's parts, its tools, who may come in, and the limits. */
export interface McpFrontOptions {
  services: HubServices;
  router: Router<HubServices>;
  tools: readonly HubTool[];
  policy: AccessPolicy;
  version: string;
  maxBodyBytes: number;
  maxInflight: number;
  ratePerSec: number;
  idleMs: number;
}

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Streamable HTTP MCP at /mcp (docs/mcp.md): the same tokens, Origin rule and limits as /rpc. Clients of the 2025
 * revisions get sessions, each a client of its own; 2026-07-28 requests act as the client their URL or token names.
 * Either way the tools are the hub's methods, and the tabs a session (or 2026-07-28 client) opened close when it
 * ends or idles past MCP_SESSION_IDLE_MS.
 */
export class McpFront {
  #options: McpFrontOptions;
  #legacy = new LegacySessions();
  #modern: ModernLane;
  #limits: HttpLimits;
  #sweeper: NodeJS.Timeout;

  constructor(options: McpFrontOptions) {
    this.#options = options;
    this.#modern = new ModernLane(options.maxBodyBytes);
    this.#limits = new HttpLimits(options.maxInflight, options.ratePerSec);
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(60_000, Math.max(250, options.idleMs / 4)));
    this.#sweeper.unref();
  }

  /** Whether a request is for the MCP front. */
  static wants(url: URL): boolean {
    return url.pathname === "/mcp";
  }

  /** Answers one request to /mcp; a refusal is the HTTP status that fits (401, 403, 404, 400, 413). */
  handle(request: IncomingMessage, response: ServerResponse, url: URL): void {
    this.#handle(request, response, url).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, error);
      else response.end();
    });
  }

  /** Ends every session and client (the hub stops). */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.all([this.#legacy.closeAll(), this.#modern.closeAll()]);
  }

  async #handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const decision = this.#options.policy.decide(request, url, "orchestrator");
    if (isRefusal(decision)) throw refusalError(decision);
    const grant = decision.grant;
    const grantKey = grantKeyOf(grant);
    const { capabilities } = grant;
    const body = request.method === "POST" ? await readJsonBody(request, this.#options.maxBodyBytes) : undefined;
    const peer = request.socket.remoteAddress ?? "unknown";
    const asked = url.searchParams.get("clientId");
    const exchange: McpExchange = { request, response, body, caps: this.#capsAsked(url) };
    if (await isLegacyRequest(await toWebRequest(request, body ?? null), body)) {
      return this.#legacy.handle(exchange, grantKey, () =>
        this.#open(grantKey, { ...sessionClient(grant, asked), peer, grantKey, capabilities }),
      );
    }
    const clientId = requestClient(grant, asked);
    await this.#modern.handle(exchange, { grantKey, clientId }, () =>
      this.#open(grantKey, { clientId, peer, ownsClient: false, grantKey, capabilities }),
    );
  }

  /** The groups of tools the URL's `caps` asks for (comma-separated, or `all`); an unknown one is 400 naming the known ones. */
  #capsAsked(url: URL): ReadonlySet<string> {
    const asked = (url.searchParams.get("caps") ?? "").split(",").filter((cap) => cap !== "");
    const known = capsOf(this.#options.tools);
    if (asked.includes("all")) return known;
    const unknown = asked.find((cap) => !known.has(cap));
    if (unknown === undefined) return new Set(asked);
    throw new HttpError(400, {
      code: ErrorCode.INVALID_PARAMS,
      message: `no tools caps ${JSON.stringify(unknown.slice(0, 100))} at /mcp; ask for ${[...known, "all"].join(", ")} (comma-separated)`,
    });
  }

  /** The tools of a new session or 2026-07-28 client, counted in /metrics until it ends. */
  #open(grantKey: string, who: ClientToolsOwner): OpenedClient {
    const { services, router, tools, version } = this.#options;
    const startCall = (): (() => void) => {
      try {
        return this.#limits.start(grantKey);
      } catch (error) {
        if (error instanceof HttpError) throw new HubError("OVERLOADED", error.message, error.data);
        throw error;
      }
    };
    const clientTools = new ClientTools({ router, services, tools, version, startCall }, who);
    return { tools: clientTools, uncount: services.metrics.connectionOpened("mcp") };
  }

  #sweep(): void {
    const idleSince = Date.now() - this.#options.idleMs;
    this.#legacy.sweep(idleSince);
    this.#modern.sweep(idleSince);
  }
}

/**
 * The client a new 2025 session acts as: a fresh one of its own for a full token (or the `clientId` of the /mcp URL),
 * else the scoped token's client named there, its only one, or the first of its clients by name.
 */
function sessionClient(grant: Grant, asked: string | null): { clientId: string; ownsClient: boolean } {
  if (grant.scope !== null) return { clientId: scopedClient(grant.scope, asked), ownsClient: false };
  const named = wanted(asked);
  return named === null ? { clientId: `mcp-${randomBytes(6).toString("hex")}`, ownsClient: true } : { clientId: named, ownsClient: false };
}

/**
 * The client a 2026-07-28 request acts as, having no session: the `clientId` of the /mcp URL, else the token's own
 * client `mcp-token-<n>` for a full token (`mcp-local` on a hub without tokens); for a scoped token as for a session.
 */
function requestClient(grant: Grant, asked: string | null): string {
  if (grant.scope === null) return wanted(asked) ?? `mcp-${grantKeyOf(grant)}`;
  return scopedClient(grant.scope, asked);
}

/** Which token a request came with ("token-<n>"), or "local" on a hub with no tokens. */
function grantKeyOf(grant: Grant): string {
  return grant.key ?? "local";
}

function wanted(asked: string | null): string | null {
  return asked !== null && CLIENT_ID.test(asked) ? asked : null;
}

function scopedClient(scope: ReadonlySet<string>, asked: string | null): string {
  const named = wanted(asked);
  if (named !== null && scope.has(named)) return named;
  const [first] = [...scope].sort();
  if (first === undefined) throw new HttpError(403, { code: ErrorCode.FORBIDDEN, message: "this token reaches no client" });
  return first;
}
