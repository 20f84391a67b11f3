import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hub } from "../../src/hub.js";
import { collect } from "../support/collect.js";
import { result } from "../support/mcp-tools.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL_TOKEN = "mcp-tabs-full-token";

interface TabEvent {
  target: string;
  clientId: string;
}

const mcpUrl = (hub: Hub, clientId?: string): URL =>
  new URL(`${hub.url.replace(/^ws/, "http")}/mcp${clientId === undefined ? "" : `?clientId=${clientId}`}`);

/** A 2025 session of the official SDK client, with its transport (whose terminateSession sends DELETE /mcp). */
async function session(hub: Hub, token: string, clientId?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "tabwire-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(mcpUrl(hub, clientId), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

describe("MCP: a session's end closes its tabs (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let watcher: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL_TOKEN,
      AUTH_KEY: "mcp-tabs-agent-key",
      MCP_SESSION_IDLE_MS: "3000",
    });
    watcher = await connect(hub, { token: FULL_TOKEN });
    await watcher.call("events.subscribe", { topics: ["tabs"] });
  });
  after(async () => {
    await watcher?.close();
    await hub?.stop();
    await site?.close();
  });

  /** Resolves once every one of `targets` has been announced closed. */
  function closedAll(targets: readonly string[]): Promise<unknown> {
    return collect<TabEvent>(watcher, "tab.closed", {
      done: (all) => targets.every((target) => all.some((event) => event.target === target)),
      timeoutMs: 20_000,
    });
  }

  /** The client's tabs as /rpc lists them. */
  async function listed(rpc: TestRpcClient, clientId: string): Promise<string[]> {
    return (await rpc.call<{ tabs: { target: string }[] }>("tabs.list", { clientId })).tabs.map((tab) => tab.target).sort();
  }

  it("a full token's 2025 session with a client of its own takes every tab of that client when it ends", async () => {
    const own = await session(hub, FULL_TOKEN);
    try {
      const mine = await result<{ target: string; clientId: string }>(own.client, "tabs_open", { url: site.url("index.html") });
      expect(mine.clientId).to.match(/^mcp-[0-9a-f]{12}$/);
      const added = await openTab(watcher, site.url("index.html"), { clientId: mine.clientId });
      const gone = closedAll([mine.target, added.target]);
      await own.transport.terminateSession();
      await gone;
      expect(await listed(watcher, mine.clientId)).to.deep.equal([]);
    } finally {
      await own.client.close();
    }
  });
});
