import { Server, type CallToolResult } from "@modelcontextprotocol/server";
import type { Capability } from "../capabilities.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import { InflightTable } from "../rpc/inflight.js";
import type { ConnectionState } from "../rpc/method.js";
import type { Router } from "../rpc/router.js";
import type { HubServices } from "../services.js";
import { isTraceparent } from "../tracing.js";
import { pageToAdd, type PageSnapshot } from "./page-answer.js";
import { SessionTabs } from "./session-tabs.js";
import { sizedForModels, toolError, toolResult } from "./tool-results.js";
import type { HubTool } from "./tools.js";

/** What a client's tools run calls with: the hub's router and services, its tools, and the limits of its token. */
export interface McpSessionParts {
  router: Router<HubServices>;
  services: HubServices;
  tools: readonly HubTool[];
  version: string;
  /** Starts one call of the token (MAX_INFLIGHT, RATE_LIMIT_PER_SEC): the function that ends it, or a throw. */
  startCall: () => () => void;
}

const CLOSE_TAB_TIMEOUT_MS = 5_000;

/** Who a ClientTools acts as: the client, the peer it serves, and whether the client is its own. */
export interface ClientToolsOwner {
  clientId: string;
  peer: string;
  /** Who the session acts for, for audit.log: its token's id. */
  grantKey: string;
  /** What its token may do: the tools it is offered and may call (null: all). */
  capabilities: ReadonlySet<Capability> | null;
  /**
   * Whether the client was made for this session alone (a full token's 2025 session with no `clientId` named): then
   * every tab of the client closes at its end, else only the tabs it opened.
   */
  ownsClient: boolean;
}

/**
 * The hub's tools as one client of the hub uses them over MCP: a 2025 session's, or the client a 2026-07-28 request
 * names (docs/mcp.md). Its MCP servers call the hub's methods as that client only, so two clients never see each
 * other's tabs or cookies; the tabs it opened close when it ends.
 */
export class ClientTools {
  readonly clientId: string;
  lastUsedAt = Date.now();
  #parts: McpSessionParts;
  #scope: ReadonlySet<string>;
  #peer: string;
  #grantKey: string;
  #capabilities: ReadonlySet<Capability> | null;
  #closed = new AbortController();
  #running = new Set<InflightTable>();
  #ownsClient: boolean;
  #tabs: SessionTabs;

  constructor(parts: McpSessionParts, who: ClientToolsOwner) {
    this.#parts = parts;
    this.clientId = who.clientId;
    this.#scope = new Set([who.clientId]);
    this.#peer = who.peer;
    this.#grantKey = who.grantKey;
    this.#capabilities = who.capabilities;
    this.#ownsClient = who.ownsClient;
    this.#tabs = new SessionTabs(parts.services, who.clientId);
  }

  /** Whether a call of the client is running (an idle sweep leaves it alone). */
  get isBusy(): boolean {
    return this.#running.size > 0;
  }

  /**
   * A new MCP server offering the tools as this client, the default ones and those of `caps`: one for a 2025
   * session's life, or one per 2026-07-28 request.
   */
  server(caps: ReadonlySet<string>): Server {
    const server = new Server({ name: "tabwire", version: this.#parts.version }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => ({
      tools: this.#offered(caps).map(({ name, description, inputSchema, annotations }) => ({
        name,
        description,
        inputSchema,
        annotations,
      })),
    }));
    server.setRequestHandler("tools/call", (request, context) =>
      this.#call(this.#callable(caps), request.params, {
        signal: context.mcpReq.signal,
        traceparent: callerTraceOf(request.params, context),
      }),
    );
    return server;
  }

  /**
   * Ends the client's use of MCP: its running calls are cancelled and the tabs it opened closed (every tab of the
   * client, when the client was its own).
   */
  async close(why: string): Promise<void> {
    if (this.#closed.signal.aborted) return;
    this.#closed.abort();
    for (const inflight of this.#running) inflight.cancelAll(new HubError("CANCELLED", `the MCP client ended (${why})`));
    try {
      await this.#closeTabs(this.#ownsClient ? await this.#everyTab() : this.#tabs.targets());
    } catch (error) {
      log.warn("an ended MCP client's tabs could not all be closed", { clientId: this.clientId, error: (error as Error).message });
    } finally {
      this.#tabs.dispose();
    }
  }

  /** The tools a server may call: the default ones and those of `caps` (the router refuses those its token may not: FORBIDDEN). */
  #callable(caps: ReadonlySet<string>): readonly HubTool[] {
    return this.#parts.tools.filter((tool) => tool.cap === undefined || caps.has(tool.cap));
  }

  /**
   * The tools listed now: the callable ones its token's capabilities cover, agent.run only while an agent of the
   * client is connected.
   */
  #offered(caps: ReadonlySet<string>): readonly HubTool[] {
    const token = { capabilities: this.#capabilities };
    const hasAgent = this.#parts.services.agents.all().some((agent) => agent.baseId === this.clientId);
    return this.#callable(caps).filter(
      (tool) => this.#parts.router.mayCall(tool.method, token) && (hasAgent || tool.method !== "agent.run"),
    );
  }

  async #call(
    callable: readonly HubTool[],
    { name, arguments: args = {} }: { name: string; arguments?: Record<string, unknown> },
    { signal, traceparent }: { signal: AbortSignal; traceparent: string | undefined },
  ): Promise<CallToolResult> {
    this.lastUsedAt = Date.now();
    const tool = callable.find((each) => each.name === name);
    if (!tool) return toolError(new HubError("METHOD_NOT_FOUND", `no tool ${name.slice(0, 100)}; list them with tools/list`));
    const inflight = new InflightTable();
    const cancel = (): void => inflight.cancelAll(new HubError("CANCELLED", "the MCP client cancelled the call"));
    signal.addEventListener("abort", cancel, { once: true });
    this.#running.add(inflight);
    let done: (() => void) | undefined;
    try {
      done = this.#parts.startCall();
      const connection = { ...this.#connection(inflight, this.#closed.signal), ...(traceparent === undefined ? {} : { traceparent }) };
      const result = await this.#parts.router.invoke(tool.method, sizedForModels(tool.method, args), connection);
      if (tool.method === "tabs.open") this.#opened(result);
      const target = pageToAdd(tool, args, result);
      const page = target === null ? null : await this.#snapshot(target, connection);
      return toolResult(tool.method, result, page);
    } catch (error) {
      return toolError(error);
    } finally {
      done?.();
      this.#running.delete(inflight);
      signal.removeEventListener("abort", cancel);
      this.lastUsedAt = Date.now();
    }
  }

  /**
   * The page's snapshot as the snapshot tool answers it by default, for an answer that adds it; null when it cannot be
   * read (the tool did what it was asked: the agent can take a snapshot itself).
   */
  async #snapshot(target: string, connection: ConnectionState): Promise<PageSnapshot | null> {
    const invoked = this.#parts.router.invoke("snapshot", sizedForModels("snapshot", { target }), connection);
    return (await invoked.catch(() => null)) as PageSnapshot | null;
  }

  /** Counts a tab tabs_open gave as the session's; one that came after the session ended is closed at once. */
  #opened(result: unknown): void {
    const { tabId, target } = result as { tabId: string; target: string };
    if (!this.#closed.signal.aborted) return this.#tabs.add(tabId);
    void this.#closeTabs([target]);
  }

  async #everyTab(): Promise<string[]> {
    const { tabs } = (await this.#parts.router.invoke("tabs.list", { clientId: this.clientId }, this.#cleanup())) as {
      tabs: { target: string }[];
    };
    return tabs.map((tab) => tab.target);
  }

  async #closeTabs(targets: readonly string[]): Promise<void> {
    const close = (target: string): Promise<unknown> =>
      this.#parts.router.invoke("tabs.close", { target, timeoutMs: CLOSE_TAB_TIMEOUT_MS }, this.#cleanup()).catch(() => undefined);
    await Promise.all(targets.map(close));
  }

  // The cleanup runs as the client, each call on a connection of its own that is not closing (a connection's in-flight
  // table holds one invoke at a time: the router gives every invoke the same id).
  #cleanup(): ConnectionState {
    return this.#connection(new InflightTable(), new AbortController().signal);
  }

  #connection(inflight: InflightTable, closed: AbortSignal): ConnectionState {
    const { clientId: id } = this;
    const who = `mcp ${this.#grantKey}`;
    return {
      id,
      scope: this.#scope,
      capabilities: this.#capabilities,
      peer: this.#peer,
      who,
      kind: "mcp",
      inflight,
      closed,
      notify: () => false,
    };
  }
}

/**
 * The caller's W3C trace context of a tool call: MCP's `params._meta.traceparent`, else the HTTP request's
 * `traceparent` header; one that is not a valid traceparent is ignored, as W3C asks.
 */
function callerTraceOf(params: { _meta?: Record<string, unknown> }, context: { http?: { req?: Request } }): string | undefined {
  const fromMeta = params._meta?.traceparent;
  if (isTraceparent(fromMeta)) return fromMeta;
  const fromHeader = context.http?.req?.headers.get("traceparent") ?? undefined;
  return isTraceparent(fromHeader) ? fromHeader : undefined;
}
