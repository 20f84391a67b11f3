import { access } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";
import puppeteer from "puppeteer-core";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { collect } from "../support/collect.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, TestRpcClient } from "../support/rpc-client.js";
import { openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "abandon-full-token-0123";
const TOKEN_A = "abandon-token-alpha-0123";
const TOKEN_B = "abandon-token-beta-01234";
const AGENT_KEY = "abandon-agent-key-012345";
const IDLE_MS = 500;
const ABANDON_MS = 1_500;
const MAX_ROUTES = 3;
// An abandoned client goes within CLIENT_ABANDON_MS and a quarter of it after its last connection closed; a busy
// machine adds its own delays on top.
const ABANDONED_WITHIN_MS = 15_000;

interface TabClosed {
  target: string;
  reason: string;
}

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

/** Collects every tab.closed and client.closed a connection hears, from now on. */
function heard(client: TestRpcClient): { tabs: TabClosed[]; clients: { clientId: string; reason: string }[] } {
  const seen = { tabs: [] as TabClosed[], clients: [] as { clientId: string; reason: string }[] };
  client.onNotification((method, params) => {
    if (method === "tab.closed") seen.tabs.push(params as unknown as TabClosed);
    if (method === "client.closed") seen.clients.push(params as unknown as { clientId: string; reason: string });
  });
  return seen;
}

describe("clients: what a gone client leaves behind goes with it (CLIENT_ABANDON_MS, routes, downloads folder; real hub, real Chromium)", function () {
  this.timeout(90_000);
  let hub: Hub;
  let site: FixtureServer;
  let watcher: TestRpcClient;
  let beta: TestRpcClient;
  const tabsOf = async (client: TestRpcClient, clientId: string): Promise<string[]> => {
    const { tabs } = (await client.call("tabs.list", { clientId })) as { tabs: { target: string }[] };
    return tabs.map((tab) => tab.target);
  };
  const folderOf = (clientId: string): string => path.join(hub.services.config.dataDir, "downloads", clientId);

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: AGENT_KEY,
      CLIENT_IDLE_MS: String(IDLE_MS),
      CLIENT_ABANDON_MS: String(ABANDON_MS),
      MAX_ROUTES_PER_CLIENT: String(MAX_ROUTES),
    });
    [watcher, beta] = await Promise.all([connect(hub, { token: FULL }), connect(hub, { token: TOKEN_B })]);
    await Promise.all([
      watcher.call("events.subscribe", { topics: ["tabs", "clients"] }),
      beta.call("events.subscribe", { topics: ["tabs", "clients"] }),
    ]);
  });
  after(async () => {
    await Promise.all([watcher?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  it("a client idled out (CLIENT_IDLE_MS) leaves no download folder and no route of its own", async () => {
    const opener = await connect(hub, { token: FULL });
    try {
      const tab = await openTab(opener, site.url("index.html"), { clientId: "idler" });
      await eventually(() => exists(folderOf("idler")), 10_000, "the client's downloads folder made with its context");
      const { routeId } = (await opener.call("network.route", { clientId: "idler", url: "**/never", action: "block" })) as {
        routeId: string;
      };
      const closed = collect<{ clientId: string; reason: string }>(watcher, "client.closed", (all) =>
        all.some((each) => each.clientId === "idler"),
      );
      await opener.call("tabs.close", { target: tab.target });
      expect((await closed).find((each) => each.clientId === "idler")?.reason).to.equal("idle");
      await eventually(async () => !(await exists(folderOf("idler"))), 10_000, "the idle client's downloads folder removed");
      // network.unroute answers an unknown route INVALID_PARAMS: the route went with its client.
      expect((await rpcFailure(opener.call("network.unroute", { routeId }))).code).to.equal(-32602);
    } finally {
      await opener.close();
    }
  });

  it("a client holds at most MAX_ROUTES_PER_CLIENT routes: past them OVERLOADED says to unroute first; another client's count is its own", async () => {
    const alpha = await connect(hub, { token: TOKEN_A });
    try {
      const tab = await openTab(alpha, site.url("index.html"), { clientId: "alpha" });
      const ids: string[] = [];
      for (let i = 0; i < MAX_ROUTES; i++) {
        const params = i % 2 === 0 ? { target: tab.target } : { clientId: "alpha" };
        ids.push(((await alpha.call("network.route", { ...params, url: `**/r${i}`, action: "block" })) as { routeId: string }).routeId);
      }
      const refused = await rpcFailure(alpha.call("network.route", { clientId: "alpha", url: "**/more", action: "block" }));
      expect(refused.code).to.equal(-32011);
      expect(refused.message)
        .to.match(/MAX_ROUTES_PER_CLIENT=3/)
        .and.match(/network\.unroute/);
      expect(refused.data).to.deep.equal({ routes: MAX_ROUTES, maxRoutes: MAX_ROUTES });
      // Beta can neither take alpha's routes away nor is it held to alpha's count.
      expect((await rpcFailure(beta.call("network.unroute", { routeId: ids[0] }))).code).to.equal(-32602);
      const betaRoute = (await beta.call("network.route", { clientId: "beta", url: "**/b", action: "block" })) as { routeId: string };
      await beta.call("network.unroute", { routeId: betaRoute.routeId });
      await alpha.call("network.unroute", { routeId: ids[1] });
      await alpha.call("network.route", { clientId: "alpha", url: "**/more", action: "block" });
      await alpha.call("tabs.close", { target: tab.target });
    } finally {
      await alpha.close();
    }
  });

  it("a client whose only connection closed without tabs.close loses its tabs after CLIENT_ABANDON_MS (reason abandoned); one with a live connection or agent keeps them; another client neither sees nor keeps it", async () => {
    const fullSeen = heard(watcher);
    const betaSeen = heard(beta);
    // Kept by a live connection: the one that opened its tab.
    const keeper = await connect(hub, { token: FULL });
    const kept = await openTab(keeper, site.url("index.html"), { clientId: "kept-by-connection" });
    // Kept by an agent registered on its tab, after the connection that opened the tab went.
    const agentOpener = await connect(hub, { token: FULL });
    const agented = await openTab(agentOpener, site.url("index.html"), { clientId: "kept-by-agent" });
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${AGENT_KEY}`, clientId: agented.target });
    expect(await agent.registration()).to.include({ status: "accepted" });
    await agentOpener.close();
    // Abandoned: its opener closes its socket with two tabs open.
    const gone = await connect(hub, { token: FULL });
    const left = [
      await openTab(gone, site.url("index.html"), { clientId: "crashy" }),
      await openTab(gone, "about:blank", { clientId: "crashy" }),
    ];
    await gone.call("network.route", { clientId: "crashy", url: "**/never", action: "block" });
    try {
      const closed = collect<TabClosed>(watcher, "tab.closed", {
        done: (all) => left.every((tab) => all.some((each) => each.target === tab.target)),
        timeoutMs: ABANDONED_WITHIN_MS,
      });
      const clientClosed = collect<{ clientId: string; reason: string }>(watcher, "client.closed", (all) =>
        all.some((each) => each.clientId === "crashy"),
      );
      await gone.close();
      // Beta names crashy's tab meanwhile: it is not found, and does not keep crashy in use.
      expect((await rpcFailure(beta.call("evaluate", { target: left[0]?.target, expression: "1" }))).code).to.equal(-32002);
      const told = await closed;
      for (const tab of left) expect(told.find((each) => each.target === tab.target)?.reason, tab.target).to.equal("abandoned");
      expect((await clientClosed).find((each) => each.clientId === "crashy")?.reason).to.equal("abandoned");
      expect(await tabsOf(watcher, "crashy")).to.deep.equal([]);
      await eventually(async () => !(await exists(folderOf("crashy"))), 10_000, "the abandoned client's downloads folder removed");

      // Another client abandoned after crashy: by then the kept ones have been idle twice CLIENT_ABANDON_MS.
      const later = await connect(hub, { token: FULL });
      const last = await openTab(later, "about:blank", { clientId: "later" });
      const lastClosed = collect<TabClosed>(watcher, "tab.closed", (all) => all.some((each) => each.target === last.target));
      await later.close();
      await lastClosed;
      expect(await tabsOf(watcher, "kept-by-connection")).to.deep.equal([kept.target]);
      expect(await tabsOf(watcher, "kept-by-agent")).to.deep.equal([agented.target]);
      expect(fullSeen.tabs.filter((each) => each.target === kept.target || each.target === agented.target)).to.deep.equal([]);
      // A token scoped to beta heard nothing of the other clients' tabs going.
      expect(betaSeen.tabs).to.deep.equal([]);
      expect(betaSeen.clients).to.deep.equal([]);
    } finally {
      await agent.close();
      await keeper.call("tabs.close", { target: kept.target }).catch(() => undefined);
      await keeper.close();
    }
  });

  it("CLIENT_ABANDON_MS and MAX_ROUTES_PER_CLIENT are refused when not whole numbers in range", async () => {
    const { parseConfig } = await import("../../src/config.js");
    expect(() => parseConfig({ CLIENT_ABANDON_MS: "-1" })).to.throw(/CLIENT_ABANDON_MS/);
    expect(() => parseConfig({ MAX_ROUTES_PER_CLIENT: "0" })).to.throw(/MAX_ROUTES_PER_CLIENT/);
    expect(parseConfig({}).clientAbandonMs).to.equal(3_600_000);
    expect(parseConfig({}).maxRoutesPerClient).to.equal(100);
  });
});

describe("/cdp: an ephemeral connection that closed its own page before disconnecting leaves no warning (hub child process)", function () {
  this.timeout(90_000);
  let hub: ChildHub;

  before(async () => {
    hub = await startChildHub({ HUB_TOKEN: FULL, AUTH_KEY: AGENT_KEY, CLIENT_IDLE_MS: String(IDLE_MS), LOG_LEVEL: "warn" });
  });
  after(async () => {
    await hub?.stop();
  });

  it("each ephemeral client's context is disposed once, client.closed once, and the hub logs no warning", async () => {
    const watcher = await TestRpcClient.connect(hub.url, { token: FULL });
    const seen = heard(watcher);
    await watcher.call("events.subscribe", { topics: ["clients"] });
    const before = hub.output().length;
    const ephemeral: string[] = [];
    for (let i = 0; i < 3; i++) {
      const browser = await puppeteer.connect({
        browserWSEndpoint: `${hub.url}/cdp?ephemeral=true`,
        headers: { Authorization: `Bearer ${FULL}` },
        defaultViewport: null,
      });
      const page = await browser.newPage();
      await page.goto("about:blank");
      await page.close();
      await browser.disconnect();
    }
    await eventually(async () => new Set(seen.clients.map((each) => each.clientId)).size >= 3, 20_000, "three ephemeral clients closed");
    ephemeral.push(...new Set(seen.clients.map((each) => each.clientId)));
    // A client whose tab closes after theirs goes CLIENT_IDLE_MS later: by then each ephemeral client's own idle timer
    // (armed when its page closed, before its connection went) has run too, which disposed the context a second time.
    const marker = await TestRpcClient.connect(hub.url, { token: FULL });
    const tab = await openTab(marker, "about:blank", { clientId: "marker" });
    await marker.call("tabs.close", { target: tab.target });
    await eventually(async () => seen.clients.some((each) => each.clientId === "marker"), 20_000, "the marker client idled out");
    await marker.close();
    await watcher.close();
    for (const clientId of ephemeral)
      expect(
        seen.clients.filter((each) => each.clientId === clientId),
        clientId,
      ).to.have.length(1);
    const logged = hub.output().slice(before);
    expect(logged).not.to.match(/Failed to find context|cannot dispose/);
    expect(logged.split("\n").filter((line) => / warn /.test(line))).to.deep.equal([]);
  });
});
