import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { TabwireClient } from "../../src/client/index.js";
import { launchChromeWithPort, type PortChrome } from "../../src/cdp/chrome-launcher.js";
import { CdpConnection } from "../../src/cdp/connection.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { failure } from "../support/rpc-client.js";
import { evaluate, openTab } from "../support/tabs.js";
import { requireChromium } from "../support/test-hub.js";

const ALPHA = "alpha-token-restart-1";
const BETA = "beta-token-restart-1";
const ALPHA_KEY = "alpha-agent-key-restart";
const BETA_KEY = "beta-agent-key-restart";

describe("a hub restarted on the same external Chrome (CDP_URL) keeps its clients", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let chrome: PortChrome;
  let fixtures: FixtureServer;
  let dataDir: string;
  const open: { close(): Promise<void> }[] = [];
  const hubs: ChildHub[] = [];

  const startHub = async (extra: Record<string, string> = {}): Promise<ChildHub> => {
    const hub = await startChildHub({
      CDP_URL: `http://${new URL(chrome.wsUrl).host}`,
      DATA_DIR: dataDir,
      HUB_TOKENS: `${ALPHA}:alpha,${BETA}:beta`,
      AGENT_KEYS: `${ALPHA_KEY}:alpha,${BETA_KEY}:beta`,
      ...extra,
    });
    hubs.push(hub);
    return hub;
  };
  const client = async (hub: ChildHub, token: string): Promise<TabwireClient> => {
    const connected = await TabwireClient.connect({ url: hub.url, token, reconnect: false });
    open.push(connected);
    return connected;
  };
  const agent = async (hub: ChildHub, clientId: string, key: string): Promise<TestAgent> => {
    const connected = await TestAgent.connect({ url: `${hub.url}/agent?token=${key}`, clientId });
    open.push(connected);
    return connected;
  };
  const killed = async (hub: ChildHub): Promise<void> => {
    process.kill(hub.pid, "SIGKILL");
    await hub.stop();
  };
  const contextsInChrome = async (): Promise<string[]> => {
    const connection = await CdpConnection.connect(chrome.wsUrl);
    try {
      return (await connection.send("Target.getBrowserContexts", undefined, { timeoutMs: EVENT_BUDGET_MS })).browserContextIds;
    } finally {
      connection.close();
    }
  };

  before(async () => {
    requireChromium();
    [chrome, fixtures, dataDir] = await Promise.all([
      launchChromeWithPort(process.env.CHROME_PATH ?? "/usr/bin/chromium", []),
      startFixtureServer(),
      mkdtemp(path.join(os.tmpdir(), "tabwire-restart-")),
    ]);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((each) => each.close().catch(() => undefined)));
    await Promise.all(hubs.splice(0).map((hub) => hub.stop()));
  });
  after(async () => {
    await Promise.all([chrome?.kill(), fixtures?.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("killed (SIGKILL): alpha's tab is listed under the same target, with its cookie, route, emulation and agent; beta's tab stays beta's", async () => {
    const first = await startHub();
    const alpha = await client(first, ALPHA);
    const beta = await client(first, BETA);
    const alphaTab = await openTab(alpha, fixtures.url("index.html"), { clientId: "alpha" });
    const betaTab = await openTab(beta, fixtures.url("index.html"), { clientId: "beta" });
    await alpha.call("cookies.set", {
      clientId: "alpha",
      cookies: [{ name: "session", value: "alpha-1", url: fixtures.origin, httpOnly: true }],
    });
    await alpha.call("network.route", { clientId: "alpha", url: "**/routed.txt", action: "fulfill", body: "from the route" });
    await alpha.call("emulate", { target: alphaTab.target, userAgent: "restarted-agent/1" });
    const firstAgent = await agent(first, alphaTab.target, ALPHA_KEY);
    expect((await firstAgent.registration()).status).to.equal("accepted");

    await killed(first);
    const second = await startHub();
    const alphaAgain = await client(second, ALPHA);
    const betaAgain = await client(second, BETA);

    const { tabs } = await alphaAgain.call("tabs.list", {});
    expect(tabs.map((tab) => [tab.target, tab.url])).to.deep.equal([[alphaTab.target, fixtures.url("index.html")]]);
    const { cookies } = await alphaAgain.call("cookies.get", { clientId: "alpha" });
    expect(cookies.map((cookie) => [cookie.name, cookie.value, cookie.httpOnly])).to.deep.equal([["session", "alpha-1", true]]);
    const routed = await evaluate(alphaAgain, alphaTab.target, "fetch('/routed.txt').then((r) => r.text())");
    expect(routed.value).to.equal("from the route");
    expect((await evaluate(alphaAgain, alphaTab.target, "navigator.userAgent")).value).to.equal("restarted-agent/1");

    const secondAgent = await agent(second, alphaTab.target, ALPHA_KEY);
    expect((await secondAgent.registration()).status).to.equal("accepted");
    secondAgent.onRequest("evaluate", () => ({ status: "success", output: { response: "again" }, executionTime: 1, toolCalls: [] }));
    secondAgent.ready();
    await eventually(
      async () => (await alphaAgain.call("tabs.list", {})).tabs[0]?.agent === "ready",
      EVENT_BUDGET_MS,
      "the re-registered agent listed ready",
    );
    const run = await alphaAgain.call("agent.run", { target: alphaTab.target, input: "still there?", timeoutMs: EVENT_BUDGET_MS });
    expect((run as { output: unknown }).output).to.deep.equal({ response: "again" });

    // Beta's tab is beta's, under the same target, and nowhere in alpha's reach.
    expect((await betaAgain.call("tabs.list", {})).tabs.map((tab) => tab.target)).to.deep.equal([betaTab.target]);
    const stolen = `alpha:${betaTab.tabId}`;
    expect((await failure(alphaAgain.call("evaluate", { target: stolen, expression: "1" }))).code).to.equal(-32002);
    expect((await failure(alphaAgain.call("evaluate", { target: betaTab.target, expression: "1" }))).code).to.equal(-32002);
    const wrongKey = await agent(second, alphaTab.target, BETA_KEY);
    expect((await wrongKey.registration()).status).to.equal("rejected");
    const wrongTab = await agent(second, stolen, ALPHA_KEY);
    expect((await wrongTab.registration()).status).to.equal("rejected");
    expect((await betaAgain.call("cookies.get", { clientId: "beta" })).cookies).to.deep.equal([]);
    const stranger = await fetch(`${second.url.replace(/^ws/, "http")}/clients/alpha/tabs`).then((response) => response.status);
    expect(stranger).to.equal(401);

    const file = await stat(path.join(dataDir, "clients.json"));
    expect(file.mode & 0o777).to.equal(0o600);
    expect(await alphaAgain.call("tabs.close", { target: alphaTab.target })).to.be.an("object");
    expect(await betaAgain.call("tabs.close", { target: betaTab.target })).to.be.an("object");
  });

  it("stopped (SIGTERM): the tab stays for the next hub; a context no client claims is disposed after CLIENT_IDLE_MS", async () => {
    const first = await startHub();
    const alpha = await client(first, ALPHA);
    const beta = await client(first, BETA);
    const tab = await openTab(alpha, fixtures.url("index.html"), { clientId: "alpha" });
    // Beta has a context (its cookie) and no tab: nothing claims it after the restart.
    await beta.call("cookies.set", { clientId: "beta", cookies: [{ name: "left", value: "behind", url: fixtures.origin }] });
    const before = await contextsInChrome();
    expect(before).to.have.length(2);

    await first.stop();
    expect(await contextsInChrome()).to.have.members(before);
    const second = await startHub({ CLIENT_IDLE_MS: "0" });
    const alphaAgain = await client(second, ALPHA);
    expect((await alphaAgain.call("tabs.list", {})).tabs.map((each) => each.target)).to.deep.equal([tab.target]);
    await eventually(async () => (await contextsInChrome()).length === 1, EVENT_BUDGET_MS, "beta's unclaimed context disposed");
    await alphaAgain.call("tabs.close", { target: tab.target });
    await eventually(async () => (await contextsInChrome()).length === 0, EVENT_BUDGET_MS, "alpha's context disposed once idle");
  });
});
