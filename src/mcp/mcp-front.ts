import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, HubError } from "../errors.js";
import { HttpError, readJsonBody, sendError, sendJson } from "../http/http-io.js";
import { HttpLimits } from "../http/http-limits.js";
import type { Router } from "../rpc/router.js";
import type { HubServices } from "../services.js";
import { isRefusal, type AccessPolicy } from "../transport/access-policy.js";
import type { Grant } from "../transport/auth.js";
import { McpSession } from "./mcp-session.js";
import type { HubTool } from "./tools.js";

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

interface HeldSession {
  session: McpSession;
  transport: StreamableHTTPServerTransport;
  /** The token the session was opened with: only that token reaches it again. */
  grantKey: string;
  /** Given back to /metrics when the session ends. */
  uncount: () => void;
}

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Streamable HTTP MCP at /mcp (docs/mcp.md): the same tokens, Origin rule and limits as /rpc; each session a client of
 * its own whose tools are the hub's methods, ended with its tabs on DELETE or after MCP_SESSION_IDLE_MS without a request.
 */
export class McpFront {
  #options: McpFrontOptions;
  #sessions = new Map<string, HeldSession>();
  #limits: HttpLimits;
  #sweeper: NodeJS.Timeout;

  constructor(options: McpFrontOptions) {
    this.#options = options;
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

  /** Ends every session (the hub stops). */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.all([...this.#sessions.keys()].map((id) => this.#end(id, "the hub stopped")));
  }

  async #handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const decision = this.#options.policy.decide(request, url, "orchestrator");
    if (isRefusal(decision))
      throw new HttpError(decision.status, { code: decision.status === 403 ? ErrorCode.FORBIDDEN : 401, message: decision.message });
    const grant = decision.grant;
    const body = request.method === "POST" ? await readJsonBody(request, this.#options.maxBodyBytes) : undefined;
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const held = this.#sessions.get(sessionId);
      // Another token's session is as unknown as an expired one.
      if (!held || held.grantKey !== grantKeyOf(grant))
        return sendJson(
          response,
          404,
          mcpError("no such MCP session (ended, idle past MCP_SESSION_IDLE_MS, or never opened): initialize a new one"),
        );
      held.session.lastUsedAt = Date.now();
      return held.transport.handleRequest(request, response, body);
    }
    if (request.method !== "POST" || !isInitializeRequest(body))
      return sendJson(response, 400, mcpError("no Mcp-Session-Id: start a session with an initialize request (POST)"));
    const transport = await this.#open(grant, { url, peer: request.socket.remoteAddress ?? "unknown" });
    await transport.handleRequest(request, response, body);
  }

  async #open(grant: Grant, from: { url: URL; peer: string }): Promise<StreamableHTTPServerTransport> {
    const { services, router, tools, version } = this.#options;
    const clientId = sessionClient(grant, from.url.searchParams.get("clientId"));
    const key = grantKeyOf(grant);
    const startCall = (): (() => void) => {
      try {
        return this.#limits.start(key);
      } catch (error) {
        if (error instanceof HttpError) throw new HubError("OVERLOADED", error.message, error.data);
        throw error;
      }
    };
    const session = new McpSession({ router, services, tools, version, startCall }, { clientId, peer: from.peer });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const uncount = services.metrics.connectionOpened("mcp");
        this.#sessions.set(id, { session, transport, grantKey: key, uncount });
      },
      onsessionclosed: (id) => this.#end(id, "the client ended it"),
    });
    await session.connect(transport);
    return transport;
  }

  async #end(id: string, why: string): Promise<void> {
    const held = this.#sessions.get(id);
    if (!held) return;
    this.#sessions.delete(id);
    held.uncount();
    await held.session.close(why);
    await held.transport.close().catch(() => undefined);
  }

  #sweep(): void {
    const idleSince = Date.now() - this.#options.idleMs;
    for (const [id, held] of this.#sessions) {
      if (held.session.lastUsedAt < idleSince && !held.session.isBusy) void this.#end(id, "idle past MCP_SESSION_IDLE_MS");
    }
  }
}

/**
 * The client a new session acts as: a fresh one for a full token (or the `clientId` of the /mcp URL), else the scoped
 * token's client named there, its only one, or the first of its clients by name.
 */
function sessionClient(grant: Grant, asked: string | null): string {
  const wanted = asked !== null && CLIENT_ID.test(asked) ? asked : null;
  if (grant.scope === null) return wanted ?? `mcp-${randomBytes(6).toString("hex")}`;
  if (wanted !== null && grant.scope.has(wanted)) return wanted;
  const [first] = [...grant.scope].sort();
  if (first === undefined) throw new HttpError(403, { code: ErrorCode.FORBIDDEN, message: "this token reaches no client" });
  return first;
}

function grantKeyOf(grant: Grant): string {
  return grant.key ?? "no-token";
}

/** A JSON-RPC error body as MCP clients read a refused request. */
function mcpError(message: string): object {
  return { jsonrpc: "2.0", error: { code: -32000, message }, id: null };
}
