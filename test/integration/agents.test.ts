import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { AgentError, TestAgent } from "../fixtures/wire-agent.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { collect } from "../support/collect.js";
import { failure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, connectClient, startTestHub } from "../support/test-hub.js";

const FULL = "orchestrator-full-1";
const SCOPED_Y = "orchestrator-only-y";
const AGENT_KEY = "agent-secret-key-42";

describe("agents: the Browser Operator endpoint and hub-to-agent calls (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let client: TabwireClient;
  const agentUrl = (path = "/agent", key: string | null = AGENT_KEY): string => `${hub.url}${path}${key ? `?token=${key}` : ""}`;
  const registered = async (clientId: string, extra: object = {}): Promise<TestAgent> => {
    const agent = await TestAgent.connect({ url: agentUrl(), clientId, ...extra });
    expect(await agent.registration()).to.include({ type: "registration_ack", status: "accepted" });
    return agent;
  };
  /** Waits until the hub lists the agent with the given state. */
  const listed = async (target: string, state: string): Promise<void> => {
    const watcher = await connectClient(hub, { token: FULL });
    await watcher.call("events.subscribe", { topics: ["agents"] });
    const clients = await watcher.call("clients.list", {});
    const base = target.split(":")[0];
    if (clients.clients.find((c) => c.clientId === base)?.agent?.state !== state) {
      await collect(watcher, state === "ready" ? "agent.ready" : "agent.connected", (all) => all.some((a) => a.target === target));
    }
    await watcher.close();
  };

  before(async () => {
    hub = await startTestHub({ HUB_TOKEN: FULL, HUB_TOKENS: `${SCOPED_Y}:Y`, AUTH_KEY: AGENT_KEY });
    client = await connectClient(hub, { token: FULL });
  });
  after(async () => {
    await client.close();
    await hub.stop();
  });

  it("handshake: welcome, register (object or array capabilities, with or without a tab), ack, ping/pong, on / and /agent", async () => {
    const first = await TestAgent.connect({ url: agentUrl("/"), clientId: "alpha:tab-1", capabilities: ["chat"] });
    expect(first.welcome).to.include.keys("type", "serverId", "version", "timestamp");
    expect(first.welcome.type).to.equal("welcome");
    expect(await first.registration()).to.deep.equal({
      type: "registration_ack",
      clientId: "alpha:tab-1",
      status: "accepted",
      tabId: "tab-1",
      isComposite: true,
    });
    const pong = await first.ping();
    expect(pong.type).to.equal("pong");
    expect(pong.timestamp).to.be.a("number");
    const second = await TestAgent.connect({ url: agentUrl(), clientId: "beta", capabilities: { tools: ["chat"] } });
    expect(await second.registration()).to.include({ clientId: "beta:default", tabId: "default", status: "accepted" });
    await Promise.all([first.close(), second.close()]);
  });

  it("auth: the key as a header or secretKey in register works; a wrong one is rejected with 1008; a wrong URL key gets 401; none at all is rejected", async () => {
    const bySecret = await TestAgent.connect({ url: agentUrl("/agent", null), clientId: "gamma", secretKey: AGENT_KEY });
    expect((await bySecret.registration()).status).to.equal("accepted");
    await bySecret.close();
    const byHeader = await TestAgent.connect({
      url: agentUrl("/agent", null),
      clientId: "gamma",
      headers: { authorization: `Bearer ${AGENT_KEY}` },
    });
    expect((await byHeader.registration()).status).to.equal("accepted");
    await byHeader.close();
    const wrong = await TestAgent.connect({ url: agentUrl("/agent", null), clientId: "gamma", secretKey: "not-the-key-at-all" });
    expect((await wrong.registration()).status).to.equal("rejected");
    expect((await wrong.closed).code).to.equal(1008);
    const none = await TestAgent.connect({ url: agentUrl("/agent", null), clientId: "gamma" });
    expect((await none.registration()).status).to.equal("rejected");
    expect((await none.closed).code).to.equal(1008);
    const refused = await TestAgent.connect({ url: agentUrl("/agent", "wrong-key-entirely"), clientId: "gamma" }).catch(
      (e: { status?: number }) => e,
    );
    expect((refused as { status?: number }).status).to.equal(401);
  });

  // The /rpc half is a wire test: the typed client sends no Origin header, so the bare client presents one.
  it("the DevTools Origin is allowed on the agent paths only", async () => {
    const fromDevTools = await TestAgent.connect({
      url: agentUrl(),
      clientId: "devtools-agent",
      headers: { origin: "devtools://devtools" },
    });
    expect((await fromDevTools.registration()).status).to.equal("accepted");
    await fromDevTools.close();
    const refused = await connect(hub, { token: FULL, origin: "devtools://devtools" }).catch((e: { status?: number }) => e);
    expect((refused as { status?: number }).status).to.equal(403);
  });

  it("ids are validated: ../ and 10,000 characters are rejected", async () => {
    for (const clientId of ["../etc:x", `a${"b".repeat(10_000)}`, "a:b:c", ""]) {
      const agent = await TestAgent.connect({ url: agentUrl(), clientId });
      const ack = await agent.registration();
      expect(ack.status, clientId.slice(0, 20)).to.equal("rejected");
      expect((await agent.closed).code).to.equal(1008);
    }
  });

  it("a tab opened for client X and an agent registered as X:<tabId>: evaluate runs in that tab; a token scoped to Y sees nothing", async () => {
    const tab = await openTab(client, "data:text/html,<title>x-tab</title>", { clientId: "X" });
    const agent = await registered(tab.target);
    try {
      await listed(tab.target, "connected");
      agent.ready();
      await listed(tab.target, "ready");
      const { tabs } = await client.call("tabs.list", { clientId: "X" });
      expect(tabs).to.have.length(1);
      expect(tabs[0]).to.deep.include({
        target: tab.target,
        clientId: "X",
        tabId: tab.tabId,
        url: "data:text/html,<title>x-tab</title>",
        title: "x-tab",
        agent: "ready",
      });
      expect((await evaluate(client, tab.target, "document.title")).value).to.equal("x-tab");
      const scoped = await connectClient(hub, { token: SCOPED_Y });
      expect((await failure(evaluate(scoped, tab.target, "1"))).code).to.equal(-32002);
      expect((await failure(scoped.call("agent.run", { target: tab.target, input: "hi" }))).code).to.equal(-32002);
      await scoped.close();
    } finally {
      await agent.close();
      await closeTab(client, tab.target);
    }
  });

  it("agent.run: evaluate with requestId and evaluationId, status frames as agent.status, the result unchanged", async () => {
    const agent = await registered("runner:t1");
    agent.onRequest("evaluate", (params) => {
      const p = params as { requestId: string; evaluationId: string };
      agent.status({ requestId: p.requestId, status: "running", progress: 0.5, message: "halfway" });
      return { status: "success", output: { response: "done" }, executionTime: 5, toolCalls: [], metadata: { echo: p.evaluationId } };
    });
    agent.ready();
    await listed("runner:t1", "ready");
    const statuses = collect(client, "agent.status", (all) => all.length >= 1);
    const result = await client.call("agent.run", { target: "runner:t1", input: "do it", timeoutMs: 10_000 });
    const request = agent.requests("evaluate")[0];
    const params = request?.params as { requestId: string; evaluationId: string; input: string; tool: string; timeout: number };
    expect(typeof request?.id).to.equal("string");
    expect(params.requestId).to.equal(params.evaluationId);
    expect(params).to.include({ input: "do it", tool: "chat" });
    expect(params.timeout).to.be.within(1, 10_000);
    expect(result).to.deep.equal({
      status: "success",
      output: { response: "done" },
      executionTime: 5,
      toolCalls: [],
      metadata: { echo: params.requestId },
    });
    // Every notification carries its sequence number on the connection (for session.resume).
    const { seq, ...status } = (await statuses)[0] as Record<string, unknown>;
    expect(seq).to.be.a("number");
    expect(status).to.deep.equal({
      target: "runner:t1",
      requestId: params.requestId,
      status: "running",
      progress: 0.5,
      message: "halfway",
    });
    await agent.close();
  });

  it("the agent's error object reaches the caller whole as AGENT_ERROR; agent.call forwards other methods", async () => {
    const agent = await registered("erring:t1");
    agent.onRequest("evaluate", () => {
      throw new AgentError(-32000, "model exploded", { error: "quota exceeded", retryAfter: 30 });
    });
    agent.onRequest("execute_tool", (params) => ({ ran: params }));
    agent.ready();
    await listed("erring:t1", "ready");
    const error = await failure(client.call("agent.run", { target: "erring:t1", input: "x" }));
    expect(error.code).to.equal(-32009);
    expect(error.data).to.deep.equal({ code: -32000, message: "model exploded", data: { error: "quota exceeded", retryAfter: 30 } });
    expect(await client.call("agent.call", { target: "erring:t1", method: "execute_tool", params: { tool: "t" } })).to.deep.equal({
      ran: { tool: "t" },
    });
    await agent.close();
  });

  it("an agent that disconnects mid-task fails the call at once with AGENT_UNAVAILABLE, not at its timeout", async () => {
    const agent = await registered("leaver:t1");
    agent.onRequest("evaluate", () => new Promise(() => {}));
    agent.ready();
    await listed("leaver:t1", "ready");
    const started = Date.now();
    const pending = failure(client.call("agent.run", { target: "leaver:t1", input: "x", timeoutMs: EVENT_BUDGET_MS }));
    await agent.nextRequest("evaluate");
    agent.terminate();
    const error = await pending;
    // AGENT_UNAVAILABLE, not TIMEOUT: answered when the agent left, far from the end of its budget.
    expect(error.code).to.equal(-32008);
    expect(Date.now() - started).to.be.below(EVENT_BUDGET_MS / 2);
  });

  it("a reconnect race: the new socket registers before the old one closes, and the new one stays", async () => {
    const old = await registered("racer:t1");
    old.ready();
    const fresh = await registered("racer:t1");
    fresh.onRequest("evaluate", () => ({ status: "success", output: "from the new one" }));
    fresh.ready();
    expect((await old.closed).reason).to.match(/replaced/);
    await listed("racer:t1", "ready");
    expect(await client.call("agent.run", { target: "racer:t1", input: "x" })).to.deep.equal({
      status: "success",
      output: "from the new one",
    });
    await fresh.close();
  });

  // A wire test: both callers pick request id 1 themselves, which the typed client does not let a caller do.
  it("two orchestrators both using id 1 never collide at the agent", async () => {
    const agent = await registered("shared:t1");
    agent.onRequest("evaluate", async (params) => ({ status: "success", output: (params as { input: string }).input }));
    agent.ready();
    await listed("shared:t1", "ready");
    const first = await connect(hub, { token: FULL });
    const other = await connect(hub, { token: FULL });
    const [a, b] = await Promise.all([
      first.call("agent.run", { target: "shared:t1", input: "from a" }, 1),
      other.call("agent.run", { target: "shared:t1", input: "from b" }, 1),
    ]);
    expect([a, b]).to.deep.equal([
      { status: "success", output: "from a" },
      { status: "success", output: "from b" },
    ]);
    const ids = agent.requests("evaluate").map((r) => r.id);
    expect(new Set(ids).size).to.equal(2);
    await Promise.all([first.close(), other.close()]);
    await agent.close();
  });

  it("a caller that disconnects cancels its agent call; an agent without ready gets no work", async () => {
    const agent = await registered("slowpoke:t1");
    expect((await failure(client.call("agent.run", { target: "slowpoke:t1", input: "x" }))).code).to.equal(-32008);
    agent.onRequest("evaluate", () => new Promise(() => {}));
    agent.ready();
    await listed("slowpoke:t1", "ready");
    const caller = await connectClient(hub, { token: FULL });
    void caller.call("agent.run", { target: "slowpoke:t1", input: "x", timeoutMs: 20_000 }).catch(() => undefined);
    await agent.nextRequest("evaluate");
    await caller.close();
    await client.call("ping", {});
    expect(hub.services.agents.get("slowpoke:t1")?.link.calls.size).to.equal(0);
    await agent.close();
  });

  it("an agent calls hub methods on its own tab (frames without jsonrpc too), and no other client's", async () => {
    const mine = await openTab(client, "data:text/html,<title>own</title>", { clientId: "owner" });
    const foreign = await openTab(client, "data:text/html,<title>foreign</title>", { clientId: "stranger" });
    const agent = await registered(mine.target, { omitJsonrpc: true });
    try {
      expect(await agent.call("evaluate", { target: mine.target, expression: "document.title" })).to.deep.equal({
        type: "string",
        value: "own",
      });
      const denied = await agent.call("evaluate", { target: foreign.target, expression: "1" }).catch((e: { code: number }) => e);
      expect((denied as { code: number }).code).to.equal(-32002);
    } finally {
      await agent.close();
      await closeTab(client, mine.target);
      await closeTab(client, foreign.target);
    }
  });
});

describe("agents: the legacy challenge", function () {
  this.timeout(30_000);

  for (const flag of [true, false]) {
    it(`works only when AGENT_LEGACY_AUTH=true (now ${flag})`, async () => {
      const hub = await startTestHub({ AUTH_KEY: AGENT_KEY, AGENT_LEGACY_AUTH: String(flag) });
      try {
        const agent = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: "old-agent", legacySecret: AGENT_KEY });
        const ack = await agent.registration();
        expect(ack.status).to.equal(flag ? "accepted" : "rejected");
        await agent.close();
      } finally {
        await hub.stop();
      }
    });
  }
});
