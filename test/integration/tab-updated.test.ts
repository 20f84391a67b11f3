import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { collect } from "../support/collect.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { result } from "../support/mcp-tools.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "tab-updated-full-token";
const TOKEN_A = "tab-updated-token-alpha";
const TOKEN_B = "tab-updated-token-beta";
const KEY_B = "tab-updated-agent-key-beta";

interface TabUpdated {
  target: string;
  clientId: string;
  tabId: string;
  url: string;
  title: string;
}

describe("tab.updated: a tab's new title and URL reach the subscribers that may see it (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: "tab-updated-agent-key",
      AGENT_KEYS: `${KEY_B}:beta`,
    });
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
    await Promise.all([alpha.call("events.subscribe", { topics: ["tabs"] }), beta.call("events.subscribe", { topics: ["tabs"] })]);
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  it("a new document.title and a history push each send tab.updated with the tab's URL and title; another client's subscriber hears nothing", async () => {
    const heardByBeta: unknown[] = [];
    beta.onNotification((method, params) => {
      if (method === "tab.updated") heardByBeta.push(params);
    });
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      const renamed = collect<TabUpdated>(alpha, "tab.updated", (all) => all.some((event) => event.title === "second"));
      await evaluate(alpha, tab.target, "document.title = 'second'");
      const event = (await renamed).find((candidate) => candidate.title === "second");
      expect(event).to.deep.include({ target: tab.target, clientId: "alpha", tabId: tab.tabId, title: "second" });
      expect(event?.url).to.equal(site.url("index.html"));

      const moved = collect<TabUpdated>(alpha, "tab.updated", (all) => all.some((update) => update.url.endsWith("/moved")));
      await evaluate(alpha, tab.target, "history.pushState({}, '', '/moved')");
      const last = (await moved).find((update) => update.url.endsWith("/moved"));
      expect(last).to.deep.include({ target: tab.target, url: site.url("moved"), title: "second" });
      // Beta's subscriber is the control: an event of its own client reaches it, and none of alpha's came before.
      const betaTab = await openTab(beta, "data:text/html,<title>beta one</title>");
      const betaRenamed = collect<TabUpdated>(beta, "tab.updated", (all) => all.some((update) => update.title === "beta two"));
      await evaluate(beta, betaTab.target, "document.title = 'beta two'");
      await betaRenamed;
      await closeTab(beta, betaTab.target);
      expect(heardByBeta.filter((update) => (update as TabUpdated).clientId !== "beta")).to.deep.equal([]);
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("an agent whose key reaches another client hears none of alpha's tab.updated, only its own client's", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY_B}`, clientId: "beta:listener" });
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      await agent.call("events.subscribe", { topics: ["tabs"] });
      const renamed = collect<TabUpdated>(alpha, "tab.updated", (all) => all.some((event) => event.title === "alpha-secret"));
      await evaluate(alpha, tab.target, "document.title = 'alpha-secret'; history.pushState({}, '', '/alpha-secret')");
      await renamed;
      // The agent's own client is the control: once its tab's update arrives, alpha's would have come before it.
      const betaTab = await openTab(beta, "data:text/html,<title>beta one</title>");
      await evaluate(beta, betaTab.target, "document.title = 'beta two'");
      const heard = (): TabUpdated[] =>
        agent.frames.filter((frame) => frame.method === "tab.updated").map((frame) => frame.params as TabUpdated);
      await eventually(async () => heard().some((update) => update.title === "beta two"), 30_000, "beta's own tab.updated at its agent");
      await closeTab(beta, betaTab.target);
      expect(heard().filter((update) => update.clientId !== "beta" || JSON.stringify(update).includes("alpha-secret"))).to.deep.equal([]);
    } finally {
      await agent.close();
      await closeTab(alpha, tab.target);
    }
  });

  it("a page that changes its title and URL in a loop sends at most one tab.updated per tab every 100 ms, the last with its final values", async () => {
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      const updates: { at: number; title: string; url: string }[] = [];
      const done = collect<TabUpdated>(alpha, "tab.updated", (all) => {
        const newest = all[all.length - 1];
        if (newest?.target === tab.target) updates.push({ at: Date.now(), title: newest.title, url: newest.url });
        return newest?.target === tab.target && newest.title === "final" && newest.url.endsWith("?n=final");
      });
      // 150 titles and URLs (Chrome ignores history changes past 200 in 10 s), one every few milliseconds, then the last ones.
      await evaluate(alpha, tab.target, {
        expression:
          "new Promise((resolve) => { let n = 0; const step = () => { document.title = 'title ' + n; history.replaceState({}, '', '?n=' + n++); if (n < 150) setTimeout(step, 1); else { document.title = 'final'; history.replaceState({}, '', '?n=final'); resolve(n); } }; step(); })",
      });
      await done.catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(updates.slice(-3))}`);
      });
      expect(updates.length).to.be.above(1);
      const spanMs = updates[updates.length - 1]!.at - updates[0]!.at;
      // One at once, then one per 100 ms at most; the slack is for delivery jitter between the hub and this client.
      expect(updates.length, `${updates.length} tab.updated over ${spanMs} ms`).to.be.at.most(Math.floor(spanMs / 100) + 3);
      expect(updates[updates.length - 1]).to.deep.include({ title: "final", url: site.url("index.html?n=final") });
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("a full token's subscriber hears every client's tab.updated, and the MCP front's tab list shows the new title", async () => {
    const full = await connect(hub, { token: FULL });
    const mcp = new Client({ name: "tabwire-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url.replace(/^ws/, "http")}/mcp?clientId=alpha`), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN_A}` } },
    });
    await mcp.connect(transport);
    const tab = await openTab(alpha, "data:text/html,<title>before</title>");
    try {
      await full.call("events.subscribe", { topics: ["tabs"] });
      const heard = collect<TabUpdated>(full, "tab.updated", (all) => all.some((update) => update.title === "after"));
      await evaluate(alpha, tab.target, "document.title = 'after'");
      expect((await heard).find((update) => update.title === "after")?.target).to.equal(tab.target);
      const { tabs } = await result<{ tabs: { target: string; title: string }[] }>(mcp, "tabs_list", {});
      expect(tabs.find((listed) => listed.target === tab.target)?.title).to.equal("after");
    } finally {
      await closeTab(alpha, tab.target);
      await transport.terminateSession().catch(() => undefined);
      await mcp.close();
      await full.close();
    }
  });
});

describe("tab.updated after the hub's session to a tab was recycled (MAX_SESSIONS=1; real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({ MAX_SESSIONS: "1" });
  });
  after(async () => {
    await hub?.stop();
    await site?.close();
  });

  it("a title set while the hub held no session to the tab is told once the tab is attached again, to subscribers and tabs.list", async () => {
    const client = await connect(hub);
    const first = await openTab(client, site.url("index.html"));
    const second = await openTab(client, site.url("other.html"));
    try {
      await client.call("events.subscribe", { topics: ["tabs"] });
      // The first tab renames itself when the second asks (same origin), then tells the fixture server it did.
      await evaluate(client, first.target, {
        expression: `new BroadcastChannel("rename").onmessage = (event) => { document.title = event.data; fetch("/mark?name=renamed"); }; 1`,
      });
      // The second tab's session takes the pool's one place: the first tab's goes, and the rename happens without it.
      await evaluate(client, second.target, `new BroadcastChannel("rename").postMessage("renamed while detached"); 1`);
      await site.waitForMark("renamed");
      const renamed = collect<TabUpdated>(client, "tab.updated", (all) => all.some((update) => update.title === "renamed while detached"));
      // Any call attaches the first tab again.
      await evaluate(client, first.target, "1");
      expect((await renamed).find((update) => update.title === "renamed while detached")?.target).to.equal(first.target);
      const { tabs } = await client.call<{ tabs: { target: string; title: string }[] }>("tabs.list", {});
      expect(tabs.find((tab) => tab.target === first.target)?.title).to.equal("renamed while detached");
      // And later titles of the tab, attached again, are told too.
      const again = collect<TabUpdated>(client, "tab.updated", (all) => all.some((update) => update.title === "renamed again"));
      await evaluate(client, first.target, "document.title = 'renamed again'");
      expect((await again).find((update) => update.title === "renamed again")?.target).to.equal(first.target);
    } finally {
      await closeTab(client, second.target);
      await closeTab(client, first.target);
      await client.close();
    }
  });
});
