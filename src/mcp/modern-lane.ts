import { toNodeHandler, type NodeMcpRequestHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, type AuthInfo, type McpHttpHandler, type McpRequestContext, type Server } from "@modelcontextprotocol/server";
import { log } from "../log.js";
import type { ClientTools } from "./client-tools.js";
import type { McpExchange, OpenedClient } from "./exchange.js";

interface HeldClient extends OpenedClient {
  key: string;
}

/**
 * The 2026-07-28 revision: no sessions; every request is served by a server of its own, acting as the client the
 * request names (docs/mcp.md). The tabs it opened close when no request has named it for MCP_SESSION_IDLE_MS.
 */
export class ModernLane {
  #clients = new Map<string, HeldClient>();
  #handler: McpHttpHandler;
  #serve: NodeMcpRequestHandler;

  constructor(maxBodyBytes: number) {
    this.#handler = createMcpHandler((context) => serverOf(context), {
      legacy: "reject",
      maxRequestBodySize: maxBodyBytes,
      onerror: (error) => log.debug("MCP request refused", { error: error.message }),
    });
    this.#serve = toNodeHandler(this.#handler, { maxRequestBodySize: maxBodyBytes });
  }

  /** Serves one 2026-07-28 request as the client `clientId` of the token `grantKey`, opened by `open` if new. */
  async handle(
    { request, response, body, caps }: McpExchange,
    who: { grantKey: string; clientId: string },
    open: () => OpenedClient,
  ): Promise<void> {
    const key = `${who.grantKey}\n${who.clientId}`;
    let held = this.#clients.get(key);
    if (!held) {
      held = { key, ...open() };
      this.#clients.set(key, held);
    }
    held.tools.lastUsedAt = Date.now();
    const auth: AuthInfo = { token: who.grantKey, clientId: who.clientId, scopes: [], extra: { tools: held.tools, caps } };
    await this.#serve(Object.assign(request, { auth }), response, body);
    held.tools.lastUsedAt = Date.now();
  }

  /** Ends the clients no request has named since before `idleSince` and with no call running. */
  sweep(idleSince: number): void {
    for (const held of this.#clients.values()) {
      if (held.tools.lastUsedAt < idleSince && !held.tools.isBusy) void this.#end(held, "idle past MCP_SESSION_IDLE_MS");
    }
  }

  /** Ends every client and the requests in flight (the hub stops). */
  async closeAll(): Promise<void> {
    await this.#handler.close();
    await Promise.all([...this.#clients.values()].map((held) => this.#end(held, "the hub stopped")));
  }

  async #end(held: HeldClient, why: string): Promise<void> {
    if (this.#clients.get(held.key) !== held) return;
    this.#clients.delete(held.key);
    held.uncount();
    await held.tools.close(why);
  }
}

/** The server of one request: the client tools the front put on the request's auth, with the request's caps. */
function serverOf(context: McpRequestContext): Server {
  const extra = context.authInfo?.extra as { tools?: ClientTools; caps?: ReadonlySet<string> } | undefined;
  if (!extra?.tools || !extra.caps) throw new Error("an MCP request reached the modern lane without its client");
  return extra.tools.server(extra.caps);
}
