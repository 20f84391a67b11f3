import { expect } from "chai";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hub } from "../../src/hub.js";
import { collect } from "../support/collect.js";
import { result } from "../support/mcp-tools.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL_TOKEN = "mcp-tabs-full-token";
const ALPHA_TOKEN = "mcp-tabs-token-alpha";

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

/** A 2026-07-28 client: no session, each request acting as the client its URL names. */
async function modernClient(hub: Hub, token: string, clientId: string): Promise<ModernClient> {
  const client = new ModernClient({ name: "tabwire-test-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernTransport(mcpUrl(hub, clientId), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

describe("MCP: a session's end closes the tabs it opened, and no other tab of its client (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let watcher: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL_TOKEN,
      HUB_TOKENS: `${ALPHA_TOKEN}:alpha`,
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

  it("a scoped token's 2025 session ended by DELETE closes its tab and that tab's popup; the /rpc tab and another session's stay, usable", async () => {
    const rpc = await connect(hub, { token: ALPHA_TOKEN });
    const rpcTab = await openTab(rpc, site.url("index.html"));
    const [one, two] = await Promise.all([session(hub, ALPHA_TOKEN), session(hub, ALPHA_TOKEN)]);
    try {
      const mine = await result<{ target: string; clientId: string }>(one.client, "tabs_open", { url: site.url("index.html") });
      const theirs = await result<{ target: string }>(two.client, "tabs_open", { url: site.url("index.html") });
      expect(mine.clientId).to.equal("alpha");
      const known = [rpcTab.target, mine.target, theirs.target];
      const popupOpened = collect<TabEvent>(watcher, "tab.opened", (all) => all.some((tab) => !known.includes(tab.target)));
      await result(one.client, "evaluate", {
        target: mine.target,
        expression: `window.open(${JSON.stringify(site.url("other.html"))}); 1`,
      });
      const popup = (await popupOpened).find((tab) => !known.includes(tab.target))?.target as string;
      expect(popup).to.match(/^alpha:/);
      const gone = closedAll([mine.target, popup]);
      await one.transport.terminateSession();
      await gone;
      expect(await listed(rpc, "alpha")).to.deep.equal([rpcTab.target, theirs.target].sort());
      expect(await evaluate(rpc, rpcTab.target, "document.title")).to.include({ value: "Fixture Home" });
      const read = await result<{ value: string }>(two.client, "evaluate", { target: theirs.target, expression: "document.title" });
      expect(read.value).to.equal("Fixture Home");
      // The other session's end takes its own tab; the /rpc tab still stays.
      const theirsGone = closedAll([theirs.target]);
      await two.transport.terminateSession();
      await theirsGone;
      expect(await listed(rpc, "alpha")).to.deep.equal([rpcTab.target]);
    } finally {
      await Promise.all([one.client.close(), two.client.close()]);
      await closeTab(rpc, rpcTab.target);
      await rpc.close();
    }
  });

  it("a full token's 2025 session naming a client (?clientId=) closes only its own tab when it ends", async () => {
    const rpcTab = await openTab(watcher, site.url("index.html"), { clientId: "named-25" });
    const named = await session(hub, FULL_TOKEN, "named-25");
    try {
      const mine = await result<{ target: string }>(named.client, "tabs_open", { url: site.url("index.html") });
      const gone = closedAll([mine.target]);
      await named.transport.terminateSession();
      await gone;
      expect(await listed(watcher, "named-25")).to.deep.equal([rpcTab.target]);
      expect(await evaluate(watcher, rpcTab.target, "document.title")).to.include({ value: "Fixture Home" });
    } finally {
      await named.client.close();
      await closeTab(watcher, rpcTab.target);
    }
  });

  it("a 2026-07-28 client idle past MCP_SESSION_IDLE_MS closes the tab it opened; the /rpc tab of the same client stays, usable", async () => {
    const rpcTab = await openTab(watcher, site.url("index.html"), { clientId: "named-26" });
    const modern = await modernClient(hub, FULL_TOKEN, "named-26");
    try {
      const mine = await result<{ target: string }>(modern, "tabs_open", { url: site.url("index.html") });
      expect(mine.target.startsWith("named-26:")).to.equal(true);
      await closedAll([mine.target]);
      expect(await listed(watcher, "named-26")).to.deep.equal([rpcTab.target]);
      expect(await evaluate(watcher, rpcTab.target, "document.title")).to.include({ value: "Fixture Home" });
    } finally {
      await modern.close();
      await closeTab(watcher, rpcTab.target);
    }
  });

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
