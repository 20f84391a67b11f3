import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import { InflightTable } from "../rpc/inflight.js";
import type { ConnectionState } from "../rpc/method.js";
import type { Router } from "../rpc/router.js";
import type { HubServices } from "../services.js";
import { sizedForModels, toolError, toolResult } from "./tool-results.js";
import type { HubTool } from "./tools.js";

/** What a session runs calls with: the hub's router and services, its tools, and the limits of its token. */
export interface McpSessionParts {
  router: Router<HubServices>;
  services: HubServices;
  tools: readonly HubTool[];
  version: string;
  /** Starts one call of the token (MAX_INFLIGHT, RATE_LIMIT_PER_SEC): the function that ends it, or a throw. */
  startCall: () => () => void;
}

const CLOSE_TAB_TIMEOUT_MS = 5_000;

/**
 * One MCP session: an MCP server over its transport whose tools call the hub's methods as one client of the hub, the
 * session's own (so two sessions never see each other's tabs or cookies). Its tabs close with it.
 */
export class McpSession {
  readonly clientId: string;
  readonly server: Server;
  lastUsedAt = Date.now();
  #parts: McpSessionParts;
  #scope: ReadonlySet<string>;
  #peer: string;
  #closed = new AbortController();
  #running = new Set<InflightTable>();

  constructor(parts: McpSessionParts, who: { clientId: string; peer: string }) {
    this.#parts = parts;
    this.clientId = who.clientId;
    this.#scope = new Set([who.clientId]);
    this.#peer = who.peer;
    this.server = new Server({ name: "tabwire", version: parts.version }, { capabilities: { tools: {} } });
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.#offered().map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations })),
    }));
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.#call(request.params.name, request.params.arguments ?? {}, extra.signal),
    );
  }

  /** Whether a call of the session is running (an idle sweep leaves it alone). */
  get isBusy(): boolean {
    return this.#running.size > 0;
  }

  /** Serves the session over `transport`. */
  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  /** Ends the session: its running calls are cancelled and its client's tabs closed. */
  async close(why: string): Promise<void> {
    if (this.#closed.signal.aborted) return;
    this.#closed.abort();
    for (const inflight of this.#running) inflight.cancelAll(new HubError("CANCELLED", `the MCP session ended (${why})`));
    // The cleanup runs as the session's client, on a connection of its own that is not closing.
    const connection = this.#connection(new InflightTable(), new AbortController().signal);
    try {
      const { tabs } = (await this.#parts.router.invoke("tabs.list", { clientId: this.clientId }, connection)) as {
        tabs: { target: string }[];
      };
      await Promise.all(
        tabs.map((tab) =>
          this.#parts.router
            .invoke("tabs.close", { target: tab.target, timeoutMs: CLOSE_TAB_TIMEOUT_MS }, connection)
            .catch(() => undefined),
        ),
      );
    } catch (error) {
      log.warn("an ended MCP session's tabs could not all be closed", { clientId: this.clientId, error: (error as Error).message });
    }
    await this.server.close().catch(() => undefined);
  }

  /** The tools offered now: agent.run only while an agent of the session's client is connected. */
  #offered(): readonly HubTool[] {
    const hasAgent = this.#parts.services.agents.all().some((agent) => agent.baseId === this.clientId);
    return hasAgent ? this.#parts.tools : this.#parts.tools.filter((tool) => tool.method !== "agent.run");
  }

  async #call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    this.lastUsedAt = Date.now();
    const tool = this.#parts.tools.find((each) => each.name === name);
    if (!tool) return toolError(new HubError("METHOD_NOT_FOUND", `no tool ${name.slice(0, 100)}; list them with tools/list`));
    const inflight = new InflightTable();
    const cancel = (): void => inflight.cancelAll(new HubError("CANCELLED", "the MCP client cancelled the call"));
    signal.addEventListener("abort", cancel, { once: true });
    this.#running.add(inflight);
    let done: (() => void) | undefined;
    try {
      done = this.#parts.startCall();
      const connection = this.#connection(inflight, this.#closed.signal);
      const result = await this.#parts.router.invoke(tool.method, sizedForModels(tool.method, args), connection);
      return toolResult(tool.method, result);
    } catch (error) {
      return toolError(error);
    } finally {
      done?.();
      this.#running.delete(inflight);
      signal.removeEventListener("abort", cancel);
      this.lastUsedAt = Date.now();
    }
  }

  #connection(inflight: InflightTable, closed: AbortSignal): ConnectionState {
    return { id: this.clientId, scope: this.#scope, peer: this.#peer, inflight, closed, notify: () => false };
  }
}
