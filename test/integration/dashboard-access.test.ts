import { expect } from "chai";
import { ErrorCode } from "../../src/errors.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { callOver, socketWith } from "../support/bare-socket.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "dash-full-token";
const TOKEN_A = "dash-token-alpha";
const TOKEN_B = "dash-token-beta";
const KEY_B = "dash-agent-key-beta";

/** Signs in to the dashboard as a browser would (Origin the hub's own); the response and its session cookie. */
async function signIn(base: string, token: string, origin = base): Promise<{ status: number; cookie: string | null; setCookie: string }> {
  // Wrong tokens count against AUTH_FAILURES_PER_MIN (20 a minute per address): this file's, all from one, stay under it.
  const response = await fetch(`${base}/ui/session`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ token }),
  });
  const setCookie = response.headers.get("set-cookie") ?? "";
  const cookie = /^(tabwire_session=[^;]+)/.exec(setCookie)?.[1] ?? null;
  return { status: response.status, cookie, setCookie };
}

/** The /rpc door of a hub from its HTTP base URL, as the dashboard's page opens it. */
function rpcUrl(base: string): string {
  return `${base.replace(/^http/, "ws")}/rpc`;
}

describe("dashboard: its files, sign-in and sessions, and what each session reaches (real hub)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let base: string;
  let site: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;
  let alphaTab: OpenedTab;
  let betaTab: OpenedTab;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: "dash-agent-key",
      AGENT_KEYS: `${KEY_B}:beta`,
    });
    base = hub.url.replace(/^ws/, "http");
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
    [alphaTab, betaTab] = await Promise.all([openTab(alpha, site.url("index.html")), openTab(beta, site.url("index.html"))]);
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  it("serves the page, its style and its scripts from the hub itself, with a policy that allows nothing from elsewhere", async () => {
    const page = await fetch(`${base}/ui`);
    expect(page.status).to.equal(200);
    expect(page.headers.get("content-type")).to.match(/^text\/html/);
    expect(page.headers.get("content-security-policy")).to.include("default-src 'self'").and.include("connect-src 'self'");
    const html = await page.text();
    expect(html)
      .to.include("/ui/js/main.js")
      .and.not.match(/https?:\/\//);
    const script = await fetch(`${base}/ui/js/main.js`);
    expect(script.status).to.equal(200);
    expect(script.headers.get("content-type")).to.match(/^text\/javascript/);
    expect((await fetch(`${base}/ui/style.css`)).status).to.equal(200);
    for (const path of ["/ui/js/../../package.json", "/ui/js/%2e%2e%2fhub.js", "/ui/nothing.html", "/ui/js/Main.JS"])
      expect((await fetch(`${base}${path}`)).status, path).to.equal(404);
  });

  it("a wrong, empty or missing token cannot sign in, and a made-up cookie reaches nothing", async () => {
    // An agent key is not a hub token: it cannot sign in either.
    for (const token of ["wrong", "", `${FULL}x`, KEY_B, "dash-agent-key"]) {
      const attempt = await signIn(base, token);
      expect(attempt.status, token).to.equal(401);
      expect(attempt.cookie, token).to.equal(null);
    }
    const made = "tabwire_session=" + "A".repeat(43);
    expect((await fetch(`${base}/ui/session`, { headers: { cookie: made } })).status).to.equal(401);
    const refused = await socketWith(rpcUrl(base), { cookie: made, origin: base }).catch((error: { status?: number }) => error.status);
    expect(refused).to.equal(401);
  });

  it("a session cookie is HttpOnly and SameSite=Strict, opens /rpc from the hub's own page only, and ends at sign-out", async () => {
    const { status, cookie, setCookie } = await signIn(base, FULL);
    expect(status).to.equal(200);
    expect(setCookie)
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Strict/i)
      .and.match(/Path=\//);
    const session = await (await fetch(`${base}/ui/session`, { headers: { cookie: cookie as string } })).json();
    expect(session).to.deep.equal({ signedIn: true, scope: null, capabilities: null, via: "cookie" });
    const ws = await socketWith(rpcUrl(base), { cookie: cookie as string, origin: base });
    expect((await callOver(ws, "ping")).result).to.have.property("time");
    ws.close();
    // Another site's page (even one the browser would send the cookie from, same site, another port) gets 403.
    const foreign = await socketWith(rpcUrl(base), { cookie: cookie as string, origin: "http://127.0.0.1:1" }).catch(
      (e: { status?: number }) => e.status,
    );
    expect(foreign).to.equal(403);
    const post = await fetch(`${base}/tabs/open`, {
      method: "POST",
      headers: { cookie: cookie as string, "content-type": "application/json" },
      body: JSON.stringify({ clientId: "alpha", url: "about:blank" }),
    });
    expect(post.status, "a POST without the hub's Origin does not ride the cookie").to.equal(401);
    await fetch(`${base}/ui/session`, { method: "DELETE", headers: { cookie: cookie as string, origin: base } });
    expect((await fetch(`${base}/ui/session`, { headers: { cookie: cookie as string } })).status).to.equal(401);
    const after = await socketWith(rpcUrl(base), { cookie: cookie as string, origin: base }).catch((e: { status?: number }) => e.status);
    expect(after).to.equal(401);
  });

  it("a scoped token's session sees only its client: listings, stats, live views and agents of the other client are unknown", async () => {
    const { cookie } = await signIn(base, TOKEN_B);
    const ws = await socketWith(rpcUrl(base), { cookie: cookie as string, origin: base });
    try {
      const clients = (await callOver(ws, "clients.list")).result?.clients as { clientId: string }[];
      expect(clients.map((client) => client.clientId)).to.deep.equal(["beta"]);
      const tabs = (await callOver(ws, "tabs.list")).result?.tabs as { target: string }[];
      expect(tabs.map((tab) => tab.target)).to.deep.equal([betaTab.target]);
      const stats = (await callOver(ws, "hub.stats")).result as { clients: { clientId: string }[]; hub?: unknown };
      expect(stats.clients.map((client) => client.clientId)).to.deep.equal(["beta"]);
      expect(stats).to.not.have.property("hub");
      for (const [method, params] of [
        ["screencast.start", { target: alphaTab.target }],
        ["snapshot", { target: alphaTab.target }],
        ["click", { target: alphaTab.target, x: 5, y: 5 }],
        ["agent.pause", { target: alphaTab.target }],
        ["console.subscribe", { target: alphaTab.target }],
      ] as const)
        expect((await callOver(ws, method, params)).error?.code, method).to.equal(ErrorCode.TARGET_NOT_FOUND);
      expect((await callOver(ws, "screencast.start", { target: betaTab.target, maxFps: 1 })).result).to.have.property("subscriptionId");
    } finally {
      ws.close();
    }
  });

  it("live views: frames are JPEGs of the page that change when it does; another client, an agent with another key and a stranger get none", async () => {
    const frames: Record<string, unknown>[] = [];
    let onFrame: () => void = () => {};
    alpha.onNotification((method, params) => {
      if (method !== "screencast.frame") return;
      frames.push(params);
      onFrame();
    });
    const nextFrame = (after: number): Promise<Record<string, unknown>> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no frame within 10 s")), 10_000);
        onFrame = () => {
          if (frames.length <= after) return;
          clearTimeout(timer);
          resolve(frames[frames.length - 1] as Record<string, unknown>);
        };
        onFrame();
      });
    const { subscriptionId } = await alpha.call<{ subscriptionId: string }>("screencast.start", { target: alphaTab.target, maxFps: 30 });
    const first = await nextFrame(0);
    expect(first).to.include({ subscriptionId, target: alphaTab.target });
    expect(
      Buffer.from(first.data as string, "base64")
        .subarray(0, 2)
        .toString("hex"),
    ).to.equal("ffd8");
    expect(first.deviceWidth).to.be.a("number").above(0);
    const seen = frames.length;
    await alpha.call("evaluate", { target: alphaTab.target, expression: "document.body.style.background = 'rgb(200, 0, 0)'" });
    const changed = await nextFrame(seen);
    expect(changed.data).to.not.equal(first.data);
    // Others: a scoped token of another client, an agent with another key, a stranger on loopback.
    expect((await rpcFailure(beta.call("screencast.start", { target: alphaTab.target }))).code).to.equal(ErrorCode.TARGET_NOT_FOUND);
    expect((await rpcFailure(beta.call("screencast.stop", { subscriptionId }))).code).to.equal(ErrorCode.INVALID_PARAMS);
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY_B}`, clientId: "beta:viewer" });
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      const error = (await agent.call("screencast.start", { target: alphaTab.target }).catch((e: unknown) => e)) as { code?: number };
      expect(error.code).to.equal(ErrorCode.TARGET_NOT_FOUND);
      const stats = (await agent.call("hub.stats")) as { clients: { clientId: string }[]; hub?: unknown };
      expect(stats.clients.map((client) => client.clientId)).to.not.include("alpha");
      expect(stats, "an agent key bound to beta sees no hub-wide figures").to.not.have.property("hub");
    } finally {
      await agent.close();
    }
    const stranger = await connect(hub).catch((e: { status?: number }) => e.status);
    expect(stranger).to.equal(401);
    expect(await alpha.call("screencast.stop", { subscriptionId })).to.deep.equal({ stopped: true });
    expect((await rpcFailure(alpha.call("screencast.stop", { subscriptionId }))).code).to.equal(ErrorCode.INVALID_PARAMS);
  });

  it("a live view and screenshots of a background tab (which keep it rendering with a screencast of their own) do not disturb each other", async () => {
    const background = await openTab(alpha, site.url("index.html"), { background: true });
    let frames = 0;
    let onFrame: () => void = () => {};
    alpha.onNotification((method, params) => {
      if (method !== "screencast.frame" || params.target !== background.target) return;
      frames++;
      onFrame();
    });
    const framesAbove = (count: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no frame past ${count} within 10 s`)), 10_000);
        onFrame = () => {
          if (frames <= count) return;
          clearTimeout(timer);
          resolve();
        };
        onFrame();
      });
    // A background tab is hidden: Chrome draws it for a capture but sends a live view no frames until it is in front.
    const { subscriptionId } = await alpha.call<{ subscriptionId: string }>("screencast.start", { target: background.target, maxFps: 30 });
    for (let i = 0; i < 3; i++) {
      const shot = await alpha.call<{ data: string }>("screenshot", { target: background.target });
      expect(Buffer.from(shot.data, "base64").subarray(1, 4).toString()).to.equal("PNG");
    }
    await alpha.call("tabs.activate", { target: background.target });
    await framesAbove(0);
    const seen = frames;
    await alpha.call("evaluate", { target: background.target, expression: "document.body.style.background = 'rgb(0, 90, 200)'" });
    await framesAbove(seen);
    await alpha.call("screencast.stop", { subscriptionId });
    await alpha.call("tabs.close", { target: background.target });
  });

  it("hub.stats counts each client's calls and errors; a full token also sees the whole hub", async () => {
    const before = (await alpha.call<{ clients: { clientId: string; calls: number; errors: number }[] }>("hub.stats")).clients;
    const was = before.find((client) => client.clientId === "alpha") ?? { calls: 0, errors: 0 };
    await alpha.call("evaluate", { target: alphaTab.target, expression: "1 + 1" });
    await rpcFailure(alpha.call("evaluate", { target: alphaTab.target, expression: "throw new Error('x')" }));
    const now = (await alpha.call<{ clients: { clientId: string; calls: number; errors: number }[] }>("hub.stats")).clients;
    const alphaNow = now.find((client) => client.clientId === "alpha");
    expect(alphaNow?.calls).to.equal(was.calls + 2);
    expect(alphaNow?.errors).to.equal(was.errors + 1);
    const full = await connect(hub, { token: FULL });
    try {
      const stats = await full.call<{ hub: { tabs: number; connections: Record<string, number>; calls: { calls: number } } }>("hub.stats");
      expect(stats.hub.tabs).to.be.at.least(2);
      expect(stats.hub.connections.orchestrator).to.be.at.least(3);
      expect(stats.hub.calls.calls).to.be.at.least(alphaNow?.calls ?? 0);
    } finally {
      await full.close();
    }
  });
});

describe("dashboard on a hub with no token (real hub)", function () {
  this.timeout(60_000);
  let hub: Hub;
  before(async () => {
    hub = await startTestHub();
  });
  after(async () => {
    await hub?.stop();
  });

  it("is open to loopback pages of its own address only: another Host (DNS rebinding) or another Origin is refused", async () => {
    const base = hub.url.replace(/^ws/, "http");
    const open = await (await fetch(`${base}/ui/session`)).json();
    expect(open).to.deep.equal({ signedIn: true, scope: null, capabilities: null, via: "open" });
    const ws = await socketWith(rpcUrl(base), { origin: base });
    expect((await callOver(ws, "ping")).result).to.have.property("time");
    ws.close();
    const port = new URL(base).port;
    const rebound = await socketWith(rpcUrl(base), { host: `evil.example:${port}`, origin: `http://evil.example:${port}` }).catch(
      (e: { status?: number }) => e.status,
    );
    expect(rebound).to.equal(403);
    const foreign = await socketWith(rpcUrl(base), { origin: "http://evil.example" }).catch((e: { status?: number }) => e.status);
    expect(foreign).to.equal(403);
  });
});
