import { once } from "node:events";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect } from "chai";
import WebSocket from "ws";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { collect } from "../support/collect.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const TAB_CLOSED = -32003;
const BROWSER_UNAVAILABLE = -32006;
const AGENT_UNAVAILABLE = -32008;

/** A loopback server whose pages never finish loading; it says when each one was asked for. */
interface HangingServer {
  url(name: string): string;
  arrived(name: string): Promise<void>;
  close(): Promise<void>;
}

async function startHangingServer(): Promise<HangingServer> {
  const seen = new Map<string, () => void>();
  const waits = new Map<string, Promise<void>>();
  const waitFor = (name: string): Promise<void> => {
    let wait = waits.get(name);
    if (!wait) waits.set(name, (wait = new Promise((resolve) => seen.set(name, resolve))));
    return wait;
  };
  const server = http.createServer((request) => {
    const name = new URL(request.url ?? "/", "http://hang.invalid").pathname.slice(1);
    void waitFor(name);
    seen.get(name)?.();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (name) => `${origin}/${name}`,
    arrived: (name) => deadline(waitFor(name), 10_000, `no request for /${name}`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A CDP client of its own on the hub's embedded Chrome, as another DevTools user would be. */
interface RawCdp {
  send(method: string, params?: object, sessionId?: string): Promise<Record<string, unknown>>;
  /** Sends a command whose answer never comes (Page.crash). */
  fire(method: string, params?: object, sessionId?: string): void;
  close(): void;
}

/** Connects to the Chrome of `pid` through the DevToolsActivePort file of its profile. */
async function rawCdp(pid: number): Promise<RawCdp> {
  const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  const profile = args.find((arg) => arg.startsWith("--user-data-dir="))?.slice("--user-data-dir=".length);
  if (!profile) throw new Error("the embedded Chrome has no --user-data-dir");
  const [port, wsPath] = readFileSync(path.join(profile, "DevToolsActivePort"), "utf8").trim().split("\n");
  const ws = new WebSocket(`ws://127.0.0.1:${port}${wsPath}`);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const pending = new Map<number, (frame: { result?: Record<string, unknown>; error?: unknown }) => void>();
  ws.on("message", (data) => {
    const frame = JSON.parse((data as Buffer).toString("utf8")) as { id?: number; result?: Record<string, unknown>; error?: unknown };
    if (frame.id !== undefined) pending.get(frame.id)?.(frame);
  });
  let nextId = 1;
  const fire = (method: string, params: object = {}, sessionId?: string): number => {
    const id = nextId++;
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return id;
  };
  return {
    send: (method, params, sessionId) =>
      deadline(
        new Promise((resolve, reject) => {
          pending.set(fire(method, params, sessionId), (frame) =>
            frame.error ? reject(new Error(JSON.stringify(frame.error))) : resolve(frame.result ?? {}),
          );
        }),
        10_000,
        `Chrome did not answer ${method}`,
      ),
    fire: (method, params, sessionId) => void fire(method, params, sessionId),
    close: () => ws.close(),
  };
}

describe("faults: Chrome, tabs, agents and orchestrators that go away mid-call (real hub, real Chromium)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let client: TestRpcClient;
  let hang: HangingServer;
  let fixtures: FixtureServer;

  before(async () => {
    // The embedded Chrome has no debugging port: this hub's operator opens one, so that the tests can act on
    // Chrome from outside the hub as another DevTools user would.
    [hub, hang, fixtures] = await Promise.all([
      startTestHub({ CHROME_ARGS: "--remote-debugging-port=0" }),
      startHangingServer(),
      startFixtureServer(),
    ]);
    client = await connect(hub);
  });
  after(async () => {
    await client?.close();
    await Promise.all([hub?.stop(), hang?.close(), fixtures?.close()]);
  });

  /** Registers an agent on `target`, says ready, and resolves once the hub has announced it ready. */
  async function readyAgent(target: string): Promise<TestAgent> {
    const watcher = await connect(hub);
    await watcher.call("events.subscribe", { topics: ["agents"] });
    const ready = collect<{ target: string }>(watcher, "agent.ready", (all) => all.some((a) => a.target === target));
    const agent = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: target });
    expect(await agent.registration()).to.include({ status: "accepted" });
    agent.ready();
    await ready;
    await watcher.close();
    return agent;
  }

  it("a tab crashed from outside the hub (Page.crash over a raw CDP socket) mid-call: TARGET_CLOSED, tab.closed crashed, other tabs work", async () => {
    const doomed = await openTab(client);
    const other = await openTab(client);
    const cdp = await rawCdp(hub.services.browser.pid as number);
    try {
      await client.call("console.subscribe", { target: doomed.target });
      const told = collect<{ target: string; reason: string }>(client, "tab.closed", (all) => all.some((t) => t.target === doomed.target));
      const pending = rpcFailure(evaluate(client, doomed.target, { expression: "new Promise(() => {})", timeoutMs: EVENT_BUDGET_MS }));
      await evaluate(client, doomed.target, "1");
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId: doomed.tabId, flatten: true });
      const crashedAt = Date.now();
      cdp.fire("Page.crash", {}, String(sessionId));
      // TARGET_CLOSED, not TIMEOUT: answered when the tab crashed, far from the end of its budget.
      expect((await pending).code).to.equal(TAB_CLOSED);
      expect(Date.now() - crashedAt).to.be.below(EVENT_BUDGET_MS / 2);
      expect((await told).find((t) => t.target === doomed.target)).to.deep.include({ target: doomed.target, reason: "crashed" });
      expect((await evaluate(client, other.target, "2 + 2")).value).to.equal(4);
    } finally {
      cdp.close();
      await closeTab(client, doomed.target);
      await closeTab(client, other.target);
    }
  });

  it("a call on a tab that has crashed fails at once with TARGET_CLOSED (or TARGET_NOT_FOUND), not at the end of its budget", async () => {
    const doomed = await openTab(client);
    const cdp = await rawCdp(hub.services.browser.pid as number);
    try {
      await client.call("console.subscribe", { target: doomed.target });
      const told = collect<{ target: string }>(client, "tab.closed", (all) => all.some((t) => t.target === doomed.target));
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId: doomed.tabId, flatten: true });
      cdp.fire("Page.crash", {}, String(sessionId));
      await told;
      const started = Date.now();
      const later = await client
        .call("evaluate", { target: doomed.target, expression: "1", timeoutMs: EVENT_BUDGET_MS })
        .catch((e: Error) => e);
      // Not TIMEOUT: the hub knows the tab is gone and does not wait on it.
      expect(later).to.have.property("code").that.is.oneOf([TAB_CLOSED, -32002]);
      expect(Date.now() - started).to.be.below(EVENT_BUDGET_MS / 2);
    } finally {
      cdp.close();
      await closeTab(client, doomed.target);
    }
  });

  it("a tab hung by a script spinning through a reload (terminateExecution unanswered) is closed: tab.closed crashed, then TARGET_NOT_FOUND", async () => {
    const doomed = await openTab(client);
    const other = await openTab(client);
    try {
      await client.call("console.subscribe", { target: doomed.target });
      const told = collect<{ target: string; reason: string }>(client, "tab.closed", {
        done: (all) => all.some((t) => t.target === doomed.target),
        timeoutMs: 15_000,
      });
      // Chrome cannot stop a script that spins while the page reloads: its renderer hangs for good. A timer that
      // starts spinning before the reload commits does it every time; the call after it times out, and the hub's
      // terminateExecution goes unanswered.
      await evaluate(client, doomed.target, "location.reload(); setTimeout(() => { for (;;) {} }, 0)");
      await evaluate(client, doomed.target, { expression: "1", timeoutMs: 100 }).catch(() => undefined);
      expect((await told).find((t) => t.target === doomed.target)).to.deep.include({ target: doomed.target, reason: "crashed" });
      expect((await rpcFailure(evaluate(client, doomed.target, "1"))).code).to.equal(-32002);
      const { tabs } = await client.call<{ tabs: { target: string }[] }>("tabs.list");
      expect(tabs.map((t) => t.target)).to.not.include(doomed.target);
      expect((await evaluate(client, other.target, "2 + 2")).value).to.equal(4);
    } finally {
      await closeTab(client, doomed.target);
      await closeTab(client, other.target);
    }
  });

  it("a tab closed from outside the hub (Target.closeTarget over raw CDP) during a navigate: TARGET_CLOSED, tab.closed closed, gone from tabs.list", async () => {
    const tab = await openTab(client);
    const cdp = await rawCdp(hub.services.browser.pid as number);
    try {
      await client.call("console.subscribe", { target: tab.target });
      const told = collect<{ target: string; reason: string }>(client, "tab.closed", (all) => all.some((t) => t.target === tab.target));
      const navigating = rpcFailure(
        client.call("navigate", { target: tab.target, url: hang.url("closed-mid-navigate"), timeoutMs: 15_000 }),
      );
      await hang.arrived("closed-mid-navigate");
      await cdp.send("Target.closeTarget", { targetId: tab.tabId });
      expect((await navigating).code).to.equal(TAB_CLOSED);
      expect((await told).find((t) => t.target === tab.target)).to.deep.include({ target: tab.target, reason: "closed" });
      const { tabs } = await client.call<{ tabs: { target: string }[] }>("tabs.list");
      expect(tabs.map((t) => t.target)).to.not.include(tab.target);
    } finally {
      cdp.close();
      await closeTab(client, tab.target);
    }
  });

  it("an agent that closes cleanly mid-task fails every call waiting on it at once with AGENT_UNAVAILABLE, and later calls too", async () => {
    const tab = await openTab(client, "about:blank", { clientId: "quitter" });
    const agent = await readyAgent(tab.target);
    const second = await connect(hub);
    try {
      agent.onRequest("evaluate", () => new Promise(() => {}));
      agent.onRequest("execute_tool", () => new Promise(() => {}));
      const budget = { timeoutMs: EVENT_BUDGET_MS };
      const running = rpcFailure(client.call("agent.run", { target: tab.target, input: "work", ...budget }));
      const calling = rpcFailure(second.call("agent.call", { target: tab.target, method: "execute_tool", params: {}, ...budget }));
      await Promise.all([agent.nextRequest("evaluate"), agent.nextRequest("execute_tool")]);
      const leftAt = Date.now();
      await agent.close(1000);
      // AGENT_UNAVAILABLE, not TIMEOUT: answered when the agent left, far from the end of their budgets.
      expect([(await running).code, (await calling).code]).to.deep.equal([AGENT_UNAVAILABLE, AGENT_UNAVAILABLE]);
      expect(Date.now() - leftAt).to.be.below(EVENT_BUDGET_MS / 2);
      const started = Date.now();
      expect((await rpcFailure(client.call("agent.run", { target: tab.target, input: "again", ...budget }))).code).to.equal(
        AGENT_UNAVAILABLE,
      );
      expect(Date.now() - started).to.be.below(EVENT_BUDGET_MS / 2);
      expect(hub.services.agents.get(tab.target)).to.equal(undefined);
    } finally {
      await second.close();
      await closeTab(client, tab.target);
    }
  });

  it("an agent that drops with its own call in flight has it cancelled: its spinning evaluation stops", async () => {
    const tab = await openTab(client, "about:blank", { clientId: "spinner" });
    const agent = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: tab.target });
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      const expression = `fetch("${fixtures.origin}/mark?name=agent-spin", { mode: "no-cors", keepalive: true }); while (true) {}`;
      void agent.call("evaluate", { target: tab.target, expression, timeoutMs: 30_000 }).catch(() => undefined);
      await fixtures.waitForMark("agent-spin");
      agent.terminate();
      expect(await evaluate(client, tab.target, { expression: "1 + 1", timeoutMs: 10_000 })).to.deep.equal({ type: "number", value: 2 });
    } finally {
      await closeTab(client, tab.target);
    }
  });

  it("an orchestrator that drops (no close handshake) with calls in flight: evaluations stop, subscriptions, agent calls and listeners are freed", async () => {
    const { console: consoleStream, agents } = hub.services;
    const tabs = await Promise.all([openTab(client), openTab(client)]);
    const agentTab = await openTab(client, "about:blank", { clientId: "helper" });
    const agent = await readyAgent(agentTab.target);
    agent.onRequest("evaluate", () => new Promise(() => {}));
    const subscriptionsBefore = consoleStream.size;
    const statusListenersBefore = agents.listenerCount("status");
    const leaver = await connect(hub);
    try {
      await leaver.call("events.subscribe", { topics: ["tabs", "agents"] });
      for (const tab of tabs) await leaver.call("console.subscribe", { target: tab.target });
      await leaver.call("console.subscribe", { target: agentTab.target });
      for (const [i, tab] of tabs.entries()) {
        const expression = `fetch("${fixtures.origin}/mark?name=drop-${i}", { mode: "no-cors", keepalive: true }); while (true) {}`;
        void leaver.call("evaluate", { target: tab.target, expression, timeoutMs: 30_000 }).catch(() => undefined);
      }
      void leaver.call("agent.run", { target: agentTab.target, input: "x", timeoutMs: 30_000 }).catch(() => undefined);
      await Promise.all([fixtures.waitForMark("drop-0"), fixtures.waitForMark("drop-1"), agent.nextRequest("evaluate")]);
      expect(consoleStream.size).to.equal(subscriptionsBefore + 3);
      expect(agents.listenerCount("status")).to.equal(statusListenersBefore + 1);
      expect(agents.get(agentTab.target)?.link.calls.size).to.equal(1);

      leaver.ws.terminate();
      for (const tab of tabs)
        expect(await evaluate(client, tab.target, { expression: "1 + 1", timeoutMs: 10_000 })).to.deep.equal({ type: "number", value: 2 });
      expect(consoleStream.size).to.equal(subscriptionsBefore);
      expect(agents.get(agentTab.target)?.link.calls.size).to.equal(0);
      expect(agents.listenerCount("status")).to.equal(statusListenersBefore);
    } finally {
      leaver.ws.terminate();
      await agent.close();
      for (const tab of [...tabs, agentTab]) await closeTab(client, tab.target);
    }
  });

  it("Chrome killed: calls in flight answer BROWSER_UNAVAILABLE at once, subscribers get tab.closed, /health and HTTP say so, then calls work", async () => {
    const { browser } = hub.services;
    const tab = await openTab(client);
    const other = await openTab(client);
    await client.call("console.subscribe", { target: tab.target });
    const told = collect<{ target: string; reason: string }>(client, "tab.closed", (all) => all.some((t) => t.target === tab.target));
    const budget = { timeoutMs: EVENT_BUDGET_MS };
    const evaluating = rpcFailure(evaluate(client, tab.target, { expression: "new Promise(() => {})", ...budget }));
    await evaluate(client, tab.target, "1");
    const navigating = rpcFailure(client.call("navigate", { target: other.target, url: hang.url("kill-navigate"), ...budget }));
    const opening = rpcFailure(client.call("tabs.open", { url: hang.url("kill-open"), ...budget }));
    await Promise.all([hang.arrived("kill-navigate"), hang.arrived("kill-open")]);

    const disconnected = once(browser, "disconnected");
    const reconnected = once(browser, "connected");
    const killedAt = Date.now();
    process.kill(browser.pid as number, "SIGKILL");
    await disconnected;
    const base = `http://127.0.0.1:${hub.port}`;
    const [health, page] = await Promise.all([
      fetch(`${base}/health`).then((r) => r.json()),
      fetch(`${base}/page/content`, { method: "POST", body: JSON.stringify({ clientId: "local", tabId: tab.tabId }) }),
    ]);
    expect(health).to.include({ browser: "down" });
    expect(page.status).to.equal(502);
    expect(((await page.json()) as { error: { code: number } }).error.code).to.equal(BROWSER_UNAVAILABLE);
    const codes = [(await evaluating).code, (await navigating).code, (await opening).code];
    // BROWSER_UNAVAILABLE, not TIMEOUT: answered when Chrome went, far from the end of their budgets.
    expect(codes).to.deep.equal([BROWSER_UNAVAILABLE, BROWSER_UNAVAILABLE, BROWSER_UNAVAILABLE]);
    expect(Date.now() - killedAt).to.be.below(EVENT_BUDGET_MS / 2);
    expect((await told).find((t) => t.target === tab.target)?.reason).to.be.oneOf(["closed", "crashed", "detached"]);

    await deadline(reconnected, 20_000, "Chrome did not come back");
    const fresh = await openTab(client);
    expect(await evaluate(client, fresh.target, "6 * 7")).to.deep.equal({ type: "number", value: 42 });
    expect(await fetch(`${base}/health`).then((r) => r.json())).to.include({ browser: "connected" });
    await closeTab(client, fresh.target);
  });
});
