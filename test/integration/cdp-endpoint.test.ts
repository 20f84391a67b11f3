import { expect } from "chai";
import { chromium } from "playwright-core";
import puppeteer, { type Browser as PuppeteerBrowser } from "puppeteer-core";
import WebSocket from "ws";
import type { Hub } from "../../src/hub.js";
import { collect } from "../support/collect.js";
import { RawCdp } from "../support/raw-cdp.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL_TOKEN = "cdp-full-token";
const ALPHA_TOKEN = "cdp-token-alpha";
const BETA_TOKEN = "cdp-token-beta";

/** The hub's /cdp WebSocket address, with a query. */
const cdpUrl = (hub: Hub, query: string): string => `${hub.url}/cdp?${query}`;
const httpUrl = (hub: Hub, path: string): string => `${hub.url.replace(/^ws/, "http")}${path}`;

async function puppeteerAs(hub: Hub, token: string, query = ""): Promise<PuppeteerBrowser> {
  return puppeteer.connect({ browserWSEndpoint: cdpUrl(hub, query), headers: { Authorization: `Bearer ${token}` }, defaultViewport: null });
}

describe("/cdp: Puppeteer and Playwright connect to the hub, scoped to their client (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL_TOKEN,
      HUB_TOKENS: `${ALPHA_TOKEN}:alpha,${BETA_TOKEN}:beta`,
      AUTH_KEY: "cdp-agent-key",
    });
  });
  after(async () => {
    await hub?.stop();
    await site?.close();
  });

  it("puppeteer-core: opens a fixture page, evaluates, clicks, types, screenshots, reads cookies and closes it", async () => {
    const browser = await puppeteerAs(hub, ALPHA_TOKEN);
    try {
      const page = await browser.newPage();
      await page.goto(site.url("set-cookie?name=session&value=alpha-secret"));
      await page.goto(site.url("form.html"));
      expect(await page.evaluate("document.title")).to.equal("Form Fixture");
      await page.click("#email", { clickCount: 3 });
      await page.type("#email", "grace@example.com");
      await page.click("#submit");
      expect(await page.$eval("#status", (element) => element.textContent)).to.equal("submitted grace@example.com");
      const png = await page.screenshot();
      expect(Buffer.from(png).subarray(1, 4).toString("latin1")).to.equal("PNG");
      const cookies = await page.cookies();
      expect(cookies.find((cookie) => cookie.name === "session")).to.include({ value: "alpha-secret", httpOnly: true });
      await page.close();
      expect((await browser.pages()).map((each) => each.url())).to.not.include(site.url("form.html"));
    } finally {
      await browser.disconnect();
    }
  });

  it("playwright-core: connectOverCDP with the token in a header, the client's context as its first, page driven, cookies read", async () => {
    const browser = await chromium.connectOverCDP(httpUrl(hub, "/cdp"), { headers: { Authorization: `Bearer ${BETA_TOKEN}` } });
    try {
      const context = browser.contexts()[0]!;
      const page = await context.newPage();
      await page.goto(site.url("set-cookie?name=session&value=beta-secret"));
      await page.goto(site.url("form.html"));
      await page.fill("#email", "beta@example.com");
      await page.click("#submit");
      expect(await page.textContent("#status")).to.equal("submitted beta@example.com");
      expect((await page.screenshot()).subarray(1, 4).toString("latin1")).to.equal("PNG");
      const cookies = await context.cookies();
      expect(cookies.map((cookie) => `${cookie.name}=${cookie.value}`)).to.include("session=beta-secret");
      await page.close();
    } finally {
      await browser.close();
    }
  });

  it("a second client's pages and cookies never appear; the tab Puppeteer opened answers evaluate over /rpc as its client's", async () => {
    const alpha = await puppeteerAs(hub, ALPHA_TOKEN);
    const beta = await chromium.connectOverCDP(httpUrl(hub, "/cdp"), { headers: { Authorization: `Bearer ${BETA_TOKEN}` } });
    const rpc = await connect(hub, { token: ALPHA_TOKEN });
    try {
      const alphaPage = await alpha.newPage();
      await alphaPage.goto(site.url("set-cookie?name=only&value=alpha"));
      await alphaPage.goto(site.url("form.html"));
      const betaPage = await beta.contexts()[0]!.newPage();
      await betaPage.goto(site.url("index.html"));
      expect((await alpha.pages()).map((page) => page.url())).to.not.include(site.url("index.html"));
      expect(beta.contexts()).to.have.length(1);
      expect(
        beta
          .contexts()[0]!
          .pages()
          .map((page) => page.url()),
      ).to.not.include(site.url("form.html"));
      expect((await beta.contexts()[0]!.cookies()).map((cookie) => cookie.name)).to.not.include("only");
      const { tabs } = (await rpc.call("tabs.list", {})) as { tabs: { target: string; url: string }[] };
      const opened = tabs.find((tab) => tab.url === site.url("form.html"));
      expect(opened?.target).to.match(/^alpha:/);
      expect(tabs.map((tab) => tab.url)).to.not.include(site.url("index.html"));
      const { value } = (await rpc.call("evaluate", { target: opened!.target, expression: "document.title" })) as { value: string };
      expect(value).to.equal("Form Fixture");
      const { text } = (await rpc.call("snapshot", { target: opened!.target })) as { text: string };
      expect(text).to.match(/button "Submit" \[ref=e\d+\]/);
      await rpc.call("click", { target: opened!.target, selector: "#submit" });
      expect(await alphaPage.$eval("#status", (element) => element.textContent)).to.equal("submitted ada@example.com");
    } finally {
      await rpc.close();
      await alpha.disconnect();
      await beta.close();
    }
  });

  it("browser.close() from a client ends its connection only: the hub, the other client and the client's own tabs go on", async () => {
    const gamma = await puppeteerAs(hub, FULL_TOKEN, "clientId=gamma");
    const delta = await puppeteerAs(hub, FULL_TOKEN, "clientId=delta");
    const page = await gamma.newPage();
    await page.goto(site.url("index.html"));
    await gamma.close();
    const other = await delta.newPage();
    await other.goto(site.url("form.html"));
    expect(await other.evaluate("document.title")).to.equal("Form Fixture");
    await delta.disconnect();
    const rpc = await connect(hub, { token: FULL_TOKEN });
    try {
      const { tabs } = (await rpc.call("tabs.list", { clientId: "gamma" })) as { tabs: { url: string }[] };
      expect(tabs.map((tab) => tab.url)).to.include(site.url("index.html"));
    } finally {
      await rpc.close();
    }
  });

  it("an ephemeral connection's context and tabs go with it", async () => {
    const rpc = await connect(hub, { token: FULL_TOKEN });
    const browser = await puppeteerAs(hub, FULL_TOKEN, "ephemeral=true");
    try {
      await rpc.call("events.subscribe", { topics: ["tabs"] });
      const page = await browser.newPage();
      await page.goto(site.url("index.html"));
      const { tabs } = (await rpc.call("tabs.list", {})) as { tabs: { target: string; url: string }[] };
      const mine = tabs.filter((tab) => tab.target.startsWith("cdp-"));
      expect(mine).to.have.length(1);
      const closed = collect<{ target: string }>(rpc, "tab.closed", {
        done: (all) => all.some((event) => event.target === mine[0]!.target),
        timeoutMs: 10_000,
      });
      await browser.disconnect();
      await closed;
      const after = (await rpc.call("tabs.list", {})) as { tabs: { target: string }[] };
      expect(after.tabs.filter((tab) => tab.target.startsWith("cdp-"))).to.deep.equal([]);
    } finally {
      await rpc.close();
    }
  });

  it("attack: a token scoped to beta reaches none of alpha's targets by any Target method, nor its sessions, nor the browser", async () => {
    const alpha = await puppeteerAs(hub, ALPHA_TOKEN);
    const page = await alpha.newPage();
    await page.goto(site.url("set-cookie?name=alpha-only&value=secret"));
    await page.goto(site.url("form.html"));
    const rpc = await connect(hub, { token: ALPHA_TOKEN });
    const { tabs } = (await rpc.call("tabs.list", {})) as { tabs: { target: string }[] };
    await rpc.close();
    const targetId = tabs[0]!.target.split(":")[1]!;
    const alphaSession = (await page.createCDPSession()).id();
    const beta = await RawCdp.open(cdpUrl(hub, ""), BETA_TOKEN);
    try {
      const refusedByTarget = [
        ["Target.attachToTarget", { targetId, flatten: true }],
        ["Target.activateTarget", { targetId }],
        ["Target.closeTarget", { targetId }],
        ["Target.getTargetInfo", { targetId }],
        ["Target.detachFromTarget", { targetId }],
        ["Target.detachFromTarget", { sessionId: alphaSession }],
        ["Target.autoAttachRelated", { targetId, waitForDebuggerOnStart: false }],
        ["Target.exposeDevToolsProtocol", { targetId }],
        ["Target.sendMessageToTarget", { targetId, message: "{}" }],
        ["Target.attachToBrowserTarget", {}],
        ["Target.disposeBrowserContext", { browserContextId: "any" }],
        ["Target.openDevTools", { targetId }],
        ["Target.setRemoteLocations", { locations: [] }],
        ["Browser.getWindowForTarget", { targetId }],
        ["Browser.crash", {}],
        ["Browser.getBrowserCommandLine", {}],
        ["SystemInfo.getProcessInfo", {}],
        ["Target.createTarget", { url: "about:blank", browserContextId: "not-mine" }],
        ["Target.createTarget", { url: "file:///etc/passwd" }],
      ] as const;
      for (const [method, params] of refusedByTarget) {
        const answer = await beta.send(method, params);
        expect(answer.error, method).to.be.an("object");
        expect(answer.result, method).to.equal(undefined);
      }
      // Commands on alpha's session id are unknown to beta's connection.
      const hijack = await beta.send("Runtime.evaluate", { expression: "document.title" }, alphaSession);
      expect(hijack.error).to.deep.include({ message: "Session with given id not found." });
      const { targetInfos } = (await beta.send("Target.getTargets")).result as { targetInfos: { targetId: string }[] };
      expect(targetInfos.map((info) => info.targetId)).to.not.include(targetId);
      await beta.send("Target.setDiscoverTargets", { discover: true });
      await beta.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
      const seen = beta.events.filter((event) => JSON.stringify(event).includes(targetId));
      expect(seen).to.deep.equal([]);
      // beta's own page, asked for every cookie it can see, and the browser-level cookie jar beta's context is.
      const created = (await beta.send("Target.createTarget", { url: "about:blank" })).result as { targetId: string };
      const { sessionId } = (await beta.send("Target.attachToTarget", { targetId: created.targetId, flatten: true })).result as {
        sessionId: string;
      };
      const pageCookies = await beta.send("Network.getAllCookies", {}, sessionId);
      const jar = await beta.send("Storage.getCookies", { browserContextId: "alpha-context-guess" });
      for (const answer of [pageCookies, jar]) expect(JSON.stringify(answer)).to.not.include("alpha-only");
      expect(jar.result).to.be.an("object");
      // The hub, alpha and beta's connection all go on.
      expect(beta.isOpen).to.equal(true);
      expect(await page.evaluate("document.title")).to.equal("Form Fixture");
      const closed = await beta.send("Browser.close");
      expect(closed.result).to.deep.equal({});
    } finally {
      beta.close();
      await alpha.disconnect();
    }
  });

  it("bad frames get CDP errors and the connection goes on; its commands are limited and it is counted in /metrics", async () => {
    const limited = await startTestHub({ HUB_TOKEN: FULL_TOKEN, AUTH_KEY: "cdp-agent-key", RATE_LIMIT_PER_SEC: "5" });
    const raw = await RawCdp.open(cdpUrl(limited, ""), FULL_TOKEN);
    try {
      const metrics = await (await fetch(httpUrl(limited, "/metrics"), { headers: { authorization: `Bearer ${FULL_TOKEN}` } })).text();
      expect(metrics).to.match(/^tabwire_connections\{kind="cdp"\} 1$/m);
      const answers = await Promise.all(Array.from({ length: 12 }, () => raw.send("Browser.getVersion")));
      const limitedOnes = answers.filter((answer) => /RATE_LIMIT_PER_SEC/.test(JSON.stringify(answer.error ?? "")));
      expect(limitedOnes.length).to.be.greaterThan(0);
      expect(answers.filter((answer) => answer.result !== undefined).length).to.be.greaterThan(0);
      const bad = await raw.sendRaw('{"id": 99, "method": 42}', 99);
      expect(bad.error).to.deep.include({ code: -32600 });
      expect(raw.isOpen).to.equal(true);
    } finally {
      raw.close();
      await limited.stop();
    }
  });

  it("a stranger, a wrong token, a foreign Origin and a token naming another client are refused before any CDP", async () => {
    await expectRefused(RawCdp.open(cdpUrl(hub, ""), "wrong"), 401);
    await expectRefused(RawCdp.open(cdpUrl(hub, "clientId=alpha"), BETA_TOKEN), 403);
    const foreign = new WebSocket(cdpUrl(hub, ""), { headers: { Authorization: `Bearer ${FULL_TOKEN}`, Origin: "http://evil.example" } });
    await expectRefused(
      new Promise((resolve, reject) => {
        foreign.once("open", resolve);
        foreign.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
      }),
      403,
    );
    expect((await fetch(httpUrl(hub, "/cdp/json/version"))).status).to.equal(401);
    const version = (await (
      await fetch(httpUrl(hub, "/cdp/json/version?clientId=alpha"), { headers: { Authorization: `Bearer ${ALPHA_TOKEN}` } })
    ).json()) as { Browser: string; webSocketDebuggerUrl: string };
    expect(version.Browser).to.match(/Chrom/);
    expect(version.webSocketDebuggerUrl).to.match(/\/cdp\?clientId=alpha$/);
    // Puppeteer's browserURL asks at the root.
    const root = (await (await fetch(httpUrl(hub, "/json/version"), { headers: { Authorization: `Bearer ${FULL_TOKEN}` } })).json()) as {
      webSocketDebuggerUrl: string;
    };
    expect(root.webSocketDebuggerUrl).to.equal(`${hub.url}/cdp`);
  });
});

async function expectRefused(opening: Promise<unknown>, status: number): Promise<void> {
  const outcome = await opening.then(
    () => "opened",
    (error: Error) => error.message,
  );
  expect(outcome).to.equal(`HTTP ${status}`);
}
