import { expect } from "chai";
import { chromium } from "playwright-core";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { collect } from "../support/collect.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { RawCdp } from "../support/raw-cdp.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL_TOKEN = "cdp-contexts-full-token";
const ALPHA_TOKEN = "cdp-contexts-token-alpha";
const BETA_TOKEN = "cdp-contexts-token-beta";
const BETA_KEY = "cdp-contexts-agent-key-beta";

interface ListedTab {
  target: string;
  clientId: string;
  url: string;
}

describe("/cdp: browser.newContext() makes a client of its own, isolated, within the token's quota (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL_TOKEN,
      HUB_TOKENS: `${ALPHA_TOKEN}:alpha,${BETA_TOKEN}:beta`,
      AUTH_KEY: "cdp-contexts-agent-key",
      AGENT_KEYS: `${BETA_KEY}:beta`,
      MAX_EPHEMERAL_CLIENTS_PER_TOKEN: "2",
    });
  });
  after(async () => {
    await hub?.stop();
    await site?.close();
  });

  const httpUrl = (path: string): string => `${hub.url.replace(/^ws/, "http")}${path}`;
  const listAll = async (): Promise<ListedTab[]> => {
    const rpc = await connect(hub, { token: FULL_TOKEN });
    try {
      return ((await rpc.call("tabs.list", {})) as { tabs: ListedTab[] }).tabs;
    } finally {
      await rpc.close();
    }
  };

  it("Playwright's newContext: its own cookies, pages of a new client the token's other clients never see, gone with context.close()", async () => {
    const browser = await chromium.connectOverCDP(httpUrl("/cdp"), { headers: { Authorization: `Bearer ${ALPHA_TOKEN}` } });
    try {
      const own = await browser.newContext();
      const page = await own.newPage();
      await page.goto(site.url("set-cookie?name=private&value=new-context"));
      await page.goto(site.url("form.html"));
      await page.fill("#email", "isolated@example.com");
      await page.click("#submit");
      expect(await page.textContent("#status")).to.equal("submitted isolated@example.com");
      expect((await own.cookies()).map((cookie) => cookie.name)).to.include("private");
      // alpha's own context (the connection's default one) does not have the new context's cookie.
      const main = browser.contexts()[0]!;
      const mainPage = await main.newPage();
      await mainPage.goto(site.url("cookies"));
      expect(await mainPage.textContent("body")).to.not.include("private");
      expect((await main.cookies()).map((cookie) => cookie.name)).to.not.include("private");
      // The new context's page is a tab of a new client: not alpha's, not beta's.
      const tabs = await listAll();
      const newClient = tabs.find((tab) => tab.url.endsWith("/form.html"))!.clientId;
      expect(newClient).to.match(/^cdp-[0-9a-f]{12}$/);
      const alphaRpc = await connect(hub, { token: ALPHA_TOKEN });
      const alphaTabs = ((await alphaRpc.call("tabs.list", {})) as { tabs: ListedTab[] }).tabs;
      await alphaRpc.close();
      expect(alphaTabs.map((tab) => tab.clientId)).to.not.include(newClient);
      const beta = await RawCdp.open(`${hub.url}/cdp`, BETA_TOKEN);
      const { targetInfos } = (await beta.send("Target.getTargets")).result as { targetInfos: { url: string }[] };
      expect(targetInfos.map((info) => info.url)).to.not.include(site.url("form.html"));
      beta.close();
      await own.close();
      expect((await listAll()).map((tab) => tab.clientId)).to.not.include(newClient);
      await mainPage.close();
    } finally {
      await browser.close();
    }
  });

  it("a new context's tab is out of reach of another client's scoped token and of an agent whose key reaches another client", async () => {
    const alpha = await RawCdp.open(`${hub.url}/cdp`, ALPHA_TOKEN);
    const beta = await connect(hub, { token: BETA_TOKEN });
    const codeOf = (pending: Promise<unknown>): Promise<number | undefined> =>
      pending.then(
        () => undefined,
        (error: { code?: number }) => error.code,
      );
    try {
      const { browserContextId } = (await alpha.send("Target.createBrowserContext")).result as { browserContextId: string };
      const url = site.url("index.html?ephemeral-secret");
      expect((await alpha.send("Target.createTarget", { url, browserContextId })).error).to.equal(undefined);
      const made = (await listAll()).find((tab) => tab.url === url)!;
      const clientId = made.target.split(":")[0]!;
      expect(clientId).to.match(/^cdp-[0-9a-f]{12}$/);
      expect(await beta.call("tabs.list", { clientId })).to.deep.equal(await beta.call("tabs.list", { clientId: "nobody" }));
      expect(await codeOf(beta.call("evaluate", { target: made.target, expression: "document.title = 'pwned'" }))).to.equal(-32002);
      expect(await codeOf(beta.call("tabs.close", { target: made.target }))).to.equal(-32002);
      const squatter = await TestAgent.connect({ url: `${hub.url}/agent?token=${BETA_KEY}`, clientId: made.target });
      expect(await squatter.registration()).to.include({ status: "rejected" });
      await squatter.close();
      const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${BETA_KEY}`, clientId: "beta:worker" });
      try {
        expect(await agent.registration()).to.include({ status: "accepted" });
        expect(await codeOf(agent.call("evaluate", { target: made.target, expression: "document.title = 'pwned'" }))).to.equal(-32002);
        expect(await codeOf(agent.call("tabs.close", { target: made.target }))).to.equal(-32002);
      } finally {
        await agent.close();
      }
      const full = await connect(hub, { token: FULL_TOKEN });
      const title = await full.call("evaluate", { target: made.target, expression: "document.title" });
      await full.close();
      expect(title).to.deep.include({ value: "Fixture Home" });
      expect((await alpha.send("Target.disposeBrowserContext", { browserContextId })).result).to.deep.equal({});
    } finally {
      alpha.close();
      await beta.close();
    }
  });

  it("'deny' cancels the downloads of a context the connection made, in that context", async () => {
    const alpha = await RawCdp.open(`${hub.url}/cdp`, ALPHA_TOKEN);
    const watcher = await connect(hub, { token: FULL_TOKEN });
    try {
      await watcher.call("events.subscribe", { topics: ["downloads"] });
      const creation = await alpha.send("Target.createBrowserContext");
      expect(creation.error).to.equal(undefined);
      const made = creation.result as { browserContextId: string };
      const created = await alpha.send("Target.createTarget", { url: "about:blank", browserContextId: made.browserContextId });
      const { targetId } = created.result as { targetId: string };
      const { sessionId } = (await alpha.send("Target.attachToTarget", { targetId, flatten: true })).result as { sessionId: string };
      await alpha.send("Page.enable", {}, sessionId);
      const loaded = alpha.event((event) => event.method === "Page.loadEventFired" && event.sessionId === sessionId);
      await alpha.send("Page.navigate", { url: site.url("form.html") }, sessionId);
      await loaded;
      await alpha.send("Browser.setDownloadBehavior", { behavior: "deny", browserContextId: made.browserContextId });
      const finished = collect<{ state: string; clientId: string }>(watcher, "download.finished", { done: (all) => all.length > 0 });
      const download =
        "{ const a = document.createElement('a'); a.href = URL.createObjectURL(new Blob(['x'])); a.download = 'x.txt';" +
        " document.documentElement.append(a); a.click(); }";
      await alpha.send("Runtime.evaluate", { expression: download }, sessionId);
      const [done] = await finished;
      expect(done).to.include({ state: "canceled" });
      expect(done?.clientId).to.match(/^cdp-/);
      expect((await alpha.send("Target.disposeBrowserContext", { browserContextId: made.browserContextId })).result).to.deep.equal({});
    } finally {
      alpha.close();
      await watcher.close();
    }
  });

  it("a token makes at most MAX_EPHEMERAL_CLIENTS_PER_TOKEN contexts; a disposed one gives its place back; a proxy of the caller's is refused", async () => {
    const alpha = await RawCdp.open(`${hub.url}/cdp`, ALPHA_TOKEN);
    try {
      const made = [await alpha.send("Target.createBrowserContext"), await alpha.send("Target.createBrowserContext")];
      const ids = made.map((answer) => (answer.result as { browserContextId: string }).browserContextId);
      expect(ids.every((id) => typeof id === "string")).to.equal(true);
      expect((await alpha.send("Target.getBrowserContexts")).result).to.deep.equal({ browserContextIds: ids });
      const third = await alpha.send("Target.createBrowserContext");
      expect(String((third.error as { message: string }).message)).to.match(/MAX_EPHEMERAL_CLIENTS_PER_TOKEN/);
      // Another token's quota is its own.
      const beta = await RawCdp.open(`${hub.url}/cdp`, BETA_TOKEN);
      expect((await beta.send("Target.createBrowserContext")).result).to.have.property("browserContextId");
      // beta cannot use or dispose of alpha's context.
      const intruding = await beta.send("Target.createTarget", { url: "about:blank", browserContextId: ids[0] });
      expect(intruding.error).to.be.an("object");
      expect((await beta.send("Target.disposeBrowserContext", { browserContextId: ids[0] })).error).to.be.an("object");
      beta.close();
      expect((await alpha.send("Target.disposeBrowserContext", { browserContextId: ids[0] })).result).to.deep.equal({});
      expect((await alpha.send("Target.createBrowserContext")).result).to.have.property("browserContextId");
      const proxied = await alpha.send("Target.disposeBrowserContext", { browserContextId: ids[1] });
      expect(proxied.result).to.deep.equal({});
      const withProxy = await alpha.send("Target.createBrowserContext", { proxyServer: "http://127.0.0.1:6379" });
      expect(String((withProxy.error as { message: string }).message)).to.match(/refuses proxyServer/);
    } finally {
      alpha.close();
    }
  });
});
