import { randomUUID } from "node:crypto";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { isInitializeRequest, type Server } from "@modelcontextprotocol/server";
import { sendJson } from "../http/http-io.js";
import type { ClientTools } from "./client-tools.js";
import type { McpExchange, OpenedClient } from "./exchange.js";

interface HeldSession {
  tools: ClientTools;
  server: Server;
  transport: NodeStreamableHTTPServerTransport;
  /** The token the session was opened with: only that token reaches it again. */
  grantKey: string;
  uncount: () => void;
}

/**
 * The 2025 revisions (2025-06-18, 2025-11-25, and the older ones the SDK serves): Streamable HTTP sessions, each a
 * client of the hub of its own, opened by initialize, named by Mcp-Session-Id, ended by DELETE or by the idle sweep.
 */
export class LegacySessions {
  #sessions = new Map<string, HeldSession>();

  /**
   * Serves one 2025 request: to its session when it names one this token opened (anything else is 404), else an
   * initialize opens a session as the client `open` gives, with the tools its URL's `caps` add.
   */
  async handle({ request, response, body, caps }: McpExchange, grantKey: string, open: () => OpenedClient): Promise<void> {
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const held = this.#sessions.get(sessionId);
      // Another token's session is as unknown as an expired one.
      if (!held || held.grantKey !== grantKey)
        return sendJson(
          response,
          404,
          mcpError("no such MCP session (ended, idle past MCP_SESSION_IDLE_MS, or never opened): initialize a new one"),
        );
      held.tools.lastUsedAt = Date.now();
      return held.transport.handleRequest(request, response, body);
    }
    if (request.method !== "POST" || !isInitializeRequest(body))
      return sendJson(response, 400, mcpError("no Mcp-Session-Id: start a session with an initialize request (POST)"));
    const { tools, uncount } = open();
    // The tools of a session are those its initialize asked for, for its whole life.
    const server = tools.server(caps);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { tools, server, transport, grantKey, uncount });
      },
      onsessionclosed: (id) => this.#end(id, "the client ended it"),
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
    // An initialize the transport refused opened no session: its client goes at once.
    if (transport.sessionId === undefined || !this.#sessions.has(transport.sessionId)) {
      uncount();
      await server.close().catch(() => undefined);
    }
  }

  /** Ends the sessions idle since before `idleSince` with no call running. */
  sweep(idleSince: number): void {
    for (const [id, held] of this.#sessions) {
      if (held.tools.lastUsedAt < idleSince && !held.tools.isBusy) void this.#end(id, "idle past MCP_SESSION_IDLE_MS");
    }
  }

  /** Ends every session (the hub stops). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.#end(id, "the hub stopped")));
  }

  async #end(id: string, why: string): Promise<void> {
    const held = this.#sessions.get(id);
    if (!held) return;
    this.#sessions.delete(id);
    held.uncount();
    await held.tools.close(why);
    await held.server.close().catch(() => undefined);
    await held.transport.close().catch(() => undefined);
  }
}

/** A JSON-RPC error body as MCP clients read a refused request. */
function mcpError(message: string): object {
  return { jsonrpc: "2.0", error: { code: -32000, message }, id: null };
}
