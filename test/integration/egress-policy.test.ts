import dgram from "node:dgram";
import http from "node:http";
import { expect } from "chai";
import { chromium } from "playwright-core";
import { Server } from "proxy-chain";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startCountingServer, type CountingServer } from "../support/egress-fixture.js";
import { eventually } from "../support/eventually.js";
import { failure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

const POLICY = { egress: { allow: ["allowed.test"] } };
const NAVIGATION_FAILED = -32012;
const INVALID_PARAMS = -32602;

interface Blocked {
  url: string;
  blockedBy?: { policy: string; rule: string };
}

describe("egress policy: a client's browser reaches only what its policy allows (real hub, Chromium, loopback servers)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let hub: Hub;
  let allowed: CountingServer;
  let other: CountingServer;
  let client: TabwireClient;
  let allowedOrigin: string;
  let otherOrigin: string;
  let direct: string;
  const opened: string[] = [];

  const open = async (clientId: string, url: string): Promise<string> => {
    const tab = await openTab(client, url, { clientId });
    opened.push(tab.target);
    return tab.target;
  };
  const blockedIn = async (target: string, fragment: string): Promise<Blocked> => {
    let found: Blocked | undefined;
    await eventually(
      async () => {
        const { requests } = await client.call("network.list", { target });
        found = (requests as Blocked[]).find((request) => request.url.includes(fragment) && request.blockedBy);
        return found !== undefined;
      },
      EVENT_BUDGET_MS,
      `a request to ${fragment} blocked by policy in network.list`,
    );
    return found as Blocked;
  };

  before(async () => {
    [allowed, other] = await Promise.all([startCountingServer(), startCountingServer()]);
    allowedOrigin = `http://allowed.test:${allowed.port}`;
    otherOrigin = `http://other.test:${other.port}`;
    direct = `http://127.0.0.1:${other.port}`;
    hub = await startTestHub({
      EGRESS_HOSTS: "allowed.test=127.0.0.1,other.test=127.0.0.1",
      // A service worker needs a secure origin: the test name is made one.
      CHROME_ARGS: `--unsafely-treat-insecure-origin-as-secure=${allowedOrigin}`,
    });
    client = await connectClient(hub);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((target) => closeTab(client, target)));
  });
  after(async () => {
    await client?.close();
    await hub?.stop();
    await Promise.all([allowed?.close(), other?.close()]);
  });

  it("a navigation to another name or to 127.0.0.1 directly is NAVIGATION_FAILED with data.policy, never reaches its server, and is in network.list with its rule and told as policy.blocked", async () => {
    await client.call("events.subscribe", { topics: ["policy"] });
    const told: { url: string; rule: string }[] = [];
    const stop = client.on("policy.blocked", (params) => void told.push(params));
    await client.call("clients.configure", { clientId: "policed-nav", policy: POLICY });
    const target = await open("policed-nav", `${allowedOrigin}/page`);
    expect(allowed.hits("/page")).to.equal(1);
    for (const url of [`${otherOrigin}/page?k=nav`, `${direct}/page?k=direct`, `${allowedOrigin}/redirect?to=${otherOrigin}/page?k=hop`]) {
      const refused = await failure(client.call("navigate", { target, url }));
      expect(refused.code, url).to.equal(NAVIGATION_FAILED);
      expect((refused.data as { policy?: unknown }).policy, url).to.include({ policy: "client" });
    }
    const direct127 = await failure(client.call("navigate", { target, url: `${direct}/page` }));
    expect((direct127.data as { policy: { rule: string } }).policy.rule).to.equal("allow");
    expect(other.hits()).to.equal(0);
    expect(allowed.hits("/redirect")).to.equal(1);
    expect((await blockedIn(target, "k=nav")).blockedBy).to.deep.equal({ policy: "client", rule: "allow" });
    await eventually(async () => told.some((notice) => notice.url.includes("other.test")), EVENT_BUDGET_MS, "policy.blocked");
    stop();
  });

  it("an image, a fetch, a WebSocket, an EventSource, a beacon, a form post and a fetch redirected to another name are refused before they reach it; the allowed ones work", async () => {
    await client.call("clients.configure", { clientId: "policed-sub", policy: POLICY });
    const target = await open("policed-sub", `${allowedOrigin}/page`);
    const results = await evaluate(client, target, {
      expression: `(async () => {
        const other = ${JSON.stringify(otherOrigin)}, allowed = ${JSON.stringify(allowedOrigin)}, wsOther = other.replace("http", "ws"), wsAllowed = allowed.replace("http", "ws");
        const image = (src) => new Promise((done) => { const i = new Image(); i.onload = () => done("loaded"); i.onerror = () => done("refused"); i.src = src; });
        const socket = (url) => new Promise((done) => { const s = new WebSocket(url); s.onmessage = (e) => { done(e.data); s.close(); }; s.onerror = () => done("refused"); });
        const stream = (url) => new Promise((done) => { const s = new EventSource(url); s.onmessage = (e) => { done(e.data); s.close(); }; s.onerror = () => { done("refused"); s.close(); }; });
        const get = (url) => fetch(url).then((r) => r.json().then((j) => j.ok ? "ok" : "bad"), () => "refused");
        const form = document.createElement("form"); form.method = "post"; form.action = other + "/form"; form.target = "sink";
        document.body.append(form); form.submit();
        return {
          imageOther: await image(other + "/img"), imageAllowed: await image(allowed + "/img"),
          fetchOther: await get(other + "/data?k=fetch"), fetchAllowed: await get(allowed + "/data"),
          redirected: await get(allowed + "/redirect?to=" + encodeURIComponent(other + "/data?k=redirect")),
          wsOther: await socket(wsOther + "/ws"), wsAllowed: await socket(wsAllowed + "/ws"),
          sseOther: await stream(other + "/events"), sseAllowed: await stream(allowed + "/events"),
          beacon: navigator.sendBeacon(other + "/beacon", "x"), beaconAllowed: navigator.sendBeacon(allowed + "/beacon", "x"),
        };
      })()`,
      awaitPromise: true,
    });
    expect(results.value).to.deep.equal({
      imageOther: "refused",
      imageAllowed: "loaded",
      fetchOther: "refused",
      fetchAllowed: "ok",
      redirected: "refused",
      wsOther: "refused",
      wsAllowed: "hello",
      sseOther: "refused",
      sseAllowed: "one",
      beacon: true,
      beaconAllowed: true,
    });
    await eventually(async () => allowed.hits("/beacon") === 1, EVENT_BUDGET_MS, "the allowed beacon");
    for (const fragment of ["/img", "/data?k=fetch", "/data?k=redirect", "/events", "/beacon", "/form"]) {
      expect((await blockedIn(target, `other.test:${other.port}${fragment}`)).blockedBy, fragment).to.deep.equal({
        policy: "client",
        rule: "allow",
      });
    }
    expect(other.hits()).to.equal(0);
    expect(allowed.hits("/ws")).to.equal(1);
  });

  it("WebRTC sends no UDP around the proxy: a STUN server on loopback gets no packet from a policed page", async () => {
    const udp = dgram.createSocket("udp4");
    let packets = 0;
    udp.on("message", () => packets++);
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
    try {
      await client.call("clients.configure", { clientId: "policed-rtc", policy: POLICY });
      const target = await open("policed-rtc", `${allowedOrigin}/page`);
      const gathered = await evaluate(client, target, {
        expression: `new Promise(async (done) => {
          const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${udp.address().port}" }] });
          pc.createDataChannel("x");
          pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && done("complete");
          await pc.setLocalDescription(await pc.createOffer());
        })`,
        awaitPromise: true,
      });
      expect(gathered.value).to.equal("complete");
      expect(packets).to.equal(0);
    } finally {
      udp.close();
    }
  });

  it("a service worker's fetch goes through the policy: the allowed one reaches its server, the other never does", async () => {
    await client.call("clients.configure", { clientId: "policed-sw", policy: POLICY });
    const target = await open("policed-sw", `${allowedOrigin}/page`);
    const urls = `${allowedOrigin}/data?k=sw,${otherOrigin}/data?k=sw`;
    const results = await evaluate(client, target, {
      expression: `new Promise((done, fail) => {
        navigator.serviceWorker.addEventListener("message", (event) => done(event.data));
        navigator.serviceWorker.register("/sw.js?urls=" + encodeURIComponent(${JSON.stringify(urls)})).catch((e) => fail(String(e)));
      })`,
      awaitPromise: true,
    });
    expect(results.value).to.deep.equal(['{"ok":true}', "refused"]);
    expect(allowed.hits("/data")).to.be.greaterThan(0);
    expect(other.hits()).to.equal(0);
  });

  it("one client's policy never touches another client's tabs, and a wider policy given later lets nothing more through", async () => {
    await client.call("clients.configure", { clientId: "policed-narrow", policy: POLICY });
    const wider = await client.call("clients.configure", {
      clientId: "policed-narrow",
      policy: { egress: { allow: ["allowed.test", "other.test"] } },
    });
    expect(wider.policies).to.equal(2);
    const policed = await open("policed-narrow", `${allowedOrigin}/page`);
    const free = await open("free-client", `${direct}/page`);
    const before = other.hits();
    expect(before).to.equal(1);
    expect((await failure(client.call("navigate", { target: policed, url: `${otherOrigin}/page` }))).code).to.equal(NAVIGATION_FAILED);
    const fetched = await evaluate(client, free, `fetch("${direct}/data").then((r) => r.json())`);
    expect(fetched.value).to.deep.equal({ ok: true });
    expect(other.hits()).to.equal(before + 1);
  });

  it("through /cdp, a policed client's pages and the contexts it makes (Playwright's newContext) are held to its policy", async () => {
    await client.call("clients.configure", { clientId: "policed-cdp", policy: POLICY });
    await open("policed-cdp", `${allowedOrigin}/page`);
    const cdpUrl = `${hub.url.replace(/^ws/, "http")}/cdp?clientId=policed-cdp`;
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      const before = other.hits();
      for (const context of [browser.contexts()[0]!, await browser.newContext()]) {
        const page = await context.newPage();
        await page.goto(`${allowedOrigin}/page`);
        expect(await page.evaluate(`fetch("${direct}/data").then(() => "reached", () => "refused")`)).to.equal("refused");
        const error = await page.goto(`${otherOrigin}/page?k=cdp`).then(
          () => "loaded",
          (failed: Error) => failed.message,
        );
        expect(error).to.match(/ERR_/);
      }
      expect(other.hits()).to.equal(before);
    } finally {
      await browser.close();
    }
  });

  it("a client-wide route set before the first tab: the tab still signs in to its proxy, loads, and the route answers", async () => {
    await client.call("clients.configure", { clientId: "policed-routed", policy: POLICY });
    await client.call("network.route", { clientId: "policed-routed", url: "**/data?k=routed", action: "block" });
    const target = await open("policed-routed", `${allowedOrigin}/page`);
    const before = allowed.hits("/data");
    const results = await evaluate(client, target, {
      expression: `Promise.all(["${allowedOrigin}/data?k=routed", "${allowedOrigin}/data?k=through"].map((u) => fetch(u).then((r) => r.json().then((j) => j.ok), () => "blocked")))`,
      awaitPromise: true,
    });
    expect(results.value).to.deep.equal(["blocked", true]);
    expect(allowed.hits("/data")).to.equal(before + 1);
  });

  it("a policy on a client whose context has tabs without a proxy is INVALID_PARAMS; with no tab the context is made again behind one", async () => {
    const tab = await open("late-policy", `${direct}/page`);
    const refused = await failure(client.call("clients.configure", { clientId: "late-policy", policy: POLICY }));
    expect(refused.code).to.equal(INVALID_PARAMS);
    expect(refused.message).to.match(/before its first tab/);
    await closeTab(client, tab);
    opened.splice(opened.indexOf(tab), 1);
    await client.call("clients.configure", { clientId: "late-policy", policy: POLICY });
    const again = await open("late-policy", `${allowedOrigin}/page`);
    const hits = other.hits();
    expect((await failure(client.call("navigate", { target: again, url: `${otherOrigin}/page` }))).code).to.equal(NAVIGATION_FAILED);
    expect(other.hits()).to.equal(hits);
  });

  it("bad policies are INVALID_PARAMS naming the path, and DEFAULT_CLIENT_ID cannot have one", async () => {
    const bad: [unknown, string][] = [
      [{ egress: { allow: ["allowed.test"], allows: [] } }, "/policy/egress/allows"],
      [{ egress: { allow: ["bad host!"] } }, "/policy/egress/allow/0"],
      [{ egress: { block: ["ok.test", "*.*.x"] } }, "/policy/egress/block/1"],
      [{ egress: { ports: [0] } }, "/policy/egress/ports/0"],
      [{ egress: { ports: [80, 70000] } }, "/policy/egress/ports/1"],
      [{ egres: {} }, "/policy/egres"],
    ];
    for (const [policy, path] of bad) {
      const refused = await failure(client.call("clients.configure", { clientId: "bad-policy", policy } as never));
      expect(refused.code, path).to.equal(INVALID_PARAMS);
      const errors = (refused.data as { errors: { path: string }[] }).errors;
      expect(
        errors.map((error) => error.path),
        JSON.stringify(policy),
      ).to.include(path);
    }
    const upstream = await failure(client.call("clients.configure", { clientId: "bad-policy", upstreamProxy: "ftp://x" }));
    expect(upstream.code).to.equal(INVALID_PARAMS);
    const local = await failure(client.call("clients.configure", { clientId: "local", policy: POLICY }));
    expect(local.code).to.equal(INVALID_PARAMS);
    expect(local.message).to.match(/default context/);
  });
});

describe("egress policy: the proxy's own door and an upstream proxy (real hub, Chromium, loopback servers)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let hub: Hub;
  let allowed: CountingServer;
  let upstream: Server;
  let client: TabwireClient;
  let allowedOrigin: string;
  const upstreamSeen: string[] = [];
  const opened: string[] = [];

  before(async () => {
    allowed = await startCountingServer();
    allowedOrigin = `http://allowed.test:${allowed.port}`;
    // The upstream proxy of a client: it counts what it is asked for and sends every test name to loopback.
    upstream = new Server({
      port: 0,
      host: "127.0.0.1",
      prepareRequestFunction: ({ hostname, port }) => {
        upstreamSeen.push(`${hostname}:${port}`);
        return {
          dnsLookup: ((_host: string, _options: unknown, done: (e: null, a: string, f: number) => void) =>
            done(null, "127.0.0.1", 4)) as never,
        };
      },
    });
    await upstream.listen();
    hub = await startTestHub({ EGRESS_HOSTS: "allowed.test=127.0.0.1,other.test=127.0.0.1" });
    client = await connectClient(hub);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((target) => closeTab(client, target)));
  });
  after(async () => {
    await client?.close();
    await hub?.stop();
    await upstream?.close(true);
    await allowed?.close();
  });

  it("the proxy refuses a local process without the client's password (407), whatever it asks for", async () => {
    await client.call("clients.configure", { clientId: "door", policy: POLICY });
    const tab = await openTab(client, `${allowedOrigin}/page`, { clientId: "door" });
    opened.push(tab.target);
    const proxyUrl = new URL((await hub.services.egress.open("door")) as string);
    const before = allowed.hits();
    for (const authorization of [undefined, `Basic ${Buffer.from("tabwire:guess").toString("base64")}`]) {
      const status = await proxyGet(proxyUrl, `http://127.0.0.1:${allowed.port}/data`, authorization);
      expect(status).to.equal(407);
    }
    expect(allowed.hits()).to.equal(before);
  });

  it("an upstream proxy gets exactly the policed client's allowed traffic: not its refused requests, not another client's", async () => {
    const second = await startCountingServer();
    try {
      await client.call("clients.configure", { clientId: "chained", policy: POLICY, upstreamProxy: `http://127.0.0.1:${upstream.port}` });
      const tab = await openTab(client, `${allowedOrigin}/page`, { clientId: "chained" });
      opened.push(tab.target);
      expect(upstreamSeen).to.include(`allowed.test:${allowed.port}`);
      const refused = await failure(client.call("navigate", { target: tab.target, url: `http://other.test:${second.port}/page` }));
      expect(refused.code).to.equal(NAVIGATION_FAILED);
      // Another client, policed or not, on another port: none of it may reach the upstream.
      const free = await openTab(client, `http://127.0.0.1:${second.port}/page`, { clientId: "unchained" });
      await client.call("clients.configure", { clientId: "policed-only", policy: POLICY });
      const policed = await openTab(client, `http://allowed.test:${second.port}/page`, { clientId: "policed-only" });
      opened.push(free.target, policed.target);
      expect(second.hits("/page")).to.equal(2);
      expect(new Set(upstreamSeen)).to.deep.equal(new Set([`allowed.test:${allowed.port}`]));
    } finally {
      await second.close();
    }
  });
});

// A plain-HTTP proxy request as another local process would send it; answers the status.
function proxyGet(proxy: URL, url: string, authorization?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: proxy.hostname,
      port: proxy.port,
      path: url,
      headers: { Host: new URL(url).host, ...(authorization ? { "Proxy-Authorization": authorization } : {}) },
    });
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.end();
  });
}
