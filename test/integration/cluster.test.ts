import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { AGENT_KEY, killHub, startClusterHubs, stopHub, type ClusterHub } from "../support/cluster-hub.js";
import { ANSWER_GRACE_MS, EVENT_BUDGET_MS, hubAnswerMs, REPLY_SLACK_MS, TIMER_LAG_MS } from "../support/budgets.js";
import { collect } from "../support/collect.js";
import { eventually } from "../support/eventually.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { rpcFailure, TestRpcClient } from "../support/rpc-client.js";
import { requireChromium } from "../support/test-hub.js";

const TTL_MS = 2_500;
// A killed instance's tabs and agents leave the lists once their entries' TTL ran out and a sweep saw it (2 s), with
// a slow day's lag between processes.
const FORGOTTEN_WITHIN_MS = TTL_MS + 2_000 + REPLY_SLACK_MS;
const FULL_TOKEN = "cluster-full-token";
const TEAM_TOKEN = "cluster-team-token";
const START_TIMEOUT_MS = 60_000;

/** Times a call that must fail, and returns its error and how long it took. */
async function timedFailure(call: Promise<unknown>): Promise<{ code: number; ms: number }> {
  const started = Date.now();
  const error = await rpcFailure(call);
  return { code: error.code, ms: Date.now() - started };
}

const TARGET_NOT_FOUND = -32002;
const AGENT_UNAVAILABLE = -32008;
const TIMEOUT = -32001;

type Tabs = { tabs: { target: string }[] };
type ToolAnswer = { isError?: boolean; structuredContent?: unknown; content: { text?: string }[] };
type Clients = { clients: { clientId: string; agent: { state: string } | null; tabs: string[] }[] };

describe("cluster over Redis: three hub processes, each with its own Chromium", function () {
  this.timeout(30_000);
  let redis: RedisServer | undefined;
  const hubs: ClusterHub[] = [];
  const clients: TestRpcClient[] = [];
  const agents: TestAgent[] = [];
  let one: TestRpcClient;
  let two: TestRpcClient;
  let three: TestRpcClient;
  let tabOfThree = "";
  let tabOfTwo = "";
  let worker: TestAgent | undefined;

  const hub = (n: 1 | 2 | 3): ClusterHub => hubs[n - 1] as ClusterHub;
  const client = async (n: 1 | 2 | 3, token = FULL_TOKEN): Promise<TestRpcClient> => {
    const connected = await TestRpcClient.connect(hub(n).url, { token });
    clients.push(connected);
    return connected;
  };
  const agent = async (n: 1 | 2 | 3, clientId: string, answer: string): Promise<TestAgent> => {
    const connected = await TestAgent.connect({ url: `${hub(n).url}/agent?token=${AGENT_KEY}`, clientId });
    agents.push(connected);
    connected.onRequest("evaluate", (params) => {
      const { requestId, input } = params as { requestId: string; input: string };
      connected.status({ requestId, status: "running", progress: 0.5, message: "half way" });
      return { status: "success", output: `${answer}: ${input}`, executionTime: 1, toolCalls: [], metadata: {} };
    });
    expect((await connected.registration()).status).to.equal("accepted");
    connected.ready();
    return connected;
  };
  // Instance 1's agent.ready for `target`: an agent's call goes through once its owner has read the agent's ready.
  const agentReady = (target: string): Promise<unknown> =>
    collect<{ target: string }>(one, "agent.ready", {
      done: (all) => all.some((event) => event.target === target),
      timeoutMs: 10_000,
    });

  before(async function () {
    this.timeout(START_TIMEOUT_MS + 30_000);
    requireChromium();
    redis = await startRedisServer();
    hubs.push(
      ...(await startClusterHubs(["one", "two", "three"], redis.url, {
        CLUSTER_TTL_MS: String(TTL_MS),
        HUB_TOKENS: `${FULL_TOKEN},${TEAM_TOKEN}:team`,
      })),
    );
    [one, two, three] = await Promise.all([client(1), client(2), client(3)]);
    tabOfThree = (await three.call<{ target: string }>("tabs.open", { url: "data:text/html,<title>three</title>" })).target;
    tabOfTwo = (await two.call<{ target: string }>("tabs.open", { url: "data:text/html,<title>two</title>" })).target;
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all([...clients.map((c) => c.close()), ...agents.map((a) => a.close().catch(() => undefined))]);
    await Promise.all(hubs.map(stopHub));
    await redis?.stop();
  });

  it("lists every instance's tabs and clients from any instance: tabs.list, clients.list and GET /clients", async () => {
    const { tabs } = await one.call<Tabs>("tabs.list");
    expect(tabs.map((tab) => tab.target)).to.include.members([tabOfThree, tabOfTwo]);
    const listed = await one.call<Clients>("clients.list");
    expect(listed.clients.flatMap((entry) => entry.tabs)).to.include.members([tabOfThree, tabOfTwo]);
    const response = await fetch(`${hub(1).url.replace("ws:", "http:")}/clients`, { headers: { authorization: `Bearer ${FULL_TOKEN}` } });
    const summaries = (await response.json()) as { tabs: { compositeClientId: string }[] }[];
    expect(summaries.flatMap((summary) => summary.tabs.map((tab) => tab.compositeClientId))).to.include.members([tabOfThree, tabOfTwo]);
  });

  it("evaluates from instance 1 in a tab of instance 3: values, arguments and the page's exceptions come back", async () => {
    await three.call("evaluate", { target: tabOfThree, expression: "window.mark = 'set on three'" });
    expect(await one.call("evaluate", { target: tabOfThree, expression: "window.mark" })).to.deep.equal({
      type: "string",
      value: "set on three",
    });
    expect(await one.call("evaluate", { target: tabOfThree, expression: "(a, b) => a + b", args: [2, 3] })).to.deep.include({ value: 5 });
    const thrown = await rpcFailure(one.call("evaluate", { target: tabOfThree, expression: "null.x" }));
    expect(thrown.code).to.equal(-32000);
    expect((thrown.data as { name: string }).name).to.equal("TypeError");
  });

  it("answers a forwarded call past its budget with TIMEOUT within timeoutMs + 250 ms, as a local one", async () => {
    const measured = { method: "evaluate", outcome: "TIMEOUT", token: FULL_TOKEN };
    const before = await hubAnswerMs(hub(1).url, measured);
    const late = await rpcFailure(one.call("evaluate", { target: tabOfThree, expression: "new Promise(() => {})", timeoutMs: 1_000 }));
    expect(late.code).to.equal(TIMEOUT);
    expect((late.data as { timeoutMs: number }).timeoutMs).to.equal(1_000);
    // As instance 1 measures it, from the call's arrival to its answer (the sockets and the test add a slow day's lag).
    const took = (await hubAnswerMs(hub(1).url, measured)) - before;
    expect(took, "ms from the call's arrival to its answer").to.be.below(1_000 + ANSWER_GRACE_MS + TIMER_LAG_MS);
  });

  it("streams instance 3's console to a subscriber on instance 1, in order, until it unsubscribes", async () => {
    const { subscriptionId } = await one.call<{ subscriptionId: string }>("console.subscribe", { target: tabOfThree });
    const messages = collect<{ subscriptionId: string; target: string; level: string; text: string }>(one, "console.message", {
      done: (all) => all.length >= 3,
      timeoutMs: 10_000,
    });
    await three.call("evaluate", {
      target: tabOfThree,
      expression: "console.log('first'); console.warn('second'); console.error('third')",
    });
    const received = await messages;
    expect(received.map((m) => [m.level, m.text])).to.deep.equal([
      ["log", "first"],
      ["warn", "second"],
      ["error", "third"],
    ]);
    expect(received.every((m) => m.subscriptionId === subscriptionId && m.target === tabOfThree)).to.equal(true);
    expect(await one.call("console.unsubscribe", { subscriptionId })).to.deep.equal({ unsubscribed: true });
    const again = await rpcFailure(one.call("console.unsubscribe", { subscriptionId }));
    expect(again.code).to.equal(-32602);
  });

  it("shows instance 3's tab live on instance 1: its screencast frames come through Redis until screencast.stop", async () => {
    const frames = collect<{ subscriptionId: string; target: string; data: string }>(one, "screencast.frame", {
      done: (all) => all.length >= 1,
      timeoutMs: 10_000,
    });
    const { subscriptionId } = await one.call<{ subscriptionId: string }>("screencast.start", { target: tabOfThree, maxFps: 5 });
    const [first] = await frames;
    expect(first).to.include({ subscriptionId, target: tabOfThree });
    expect(
      Buffer.from(first?.data ?? "", "base64")
        .subarray(0, 2)
        .toString("hex"),
    ).to.equal("ffd8");
    expect(await one.call("screencast.stop", { subscriptionId })).to.deep.equal({ stopped: true });
    expect((await rpcFailure(one.call("screencast.stop", { subscriptionId }))).code).to.equal(-32602);
  });

  it("tells instance 1 of instance 2's tabs opening and closing: a watcher and console subscriber gets tab.closed once", async () => {
    await one.call("events.subscribe", { topics: ["tabs"] });
    const opened = collect<{ target: string; clientId: string }>(one, "tab.opened", {
      done: (all) => all.some((event) => event.clientId === "closing"),
      timeoutMs: 10_000,
    });
    const { target } = await two.call<{ target: string }>("tabs.open", { clientId: "closing", url: "about:blank" });
    expect((await opened).find((event) => event.clientId === "closing")?.target).to.equal(target);
    await one.call("evaluate", { target, expression: "1" });
    await one.call("console.subscribe", { target });
    const closed = collect<{ target: string; reason: string }>(one, "tab.closed", {
      done: (all) => all.some((event) => event.target === target),
      timeoutMs: 10_000,
    });
    await two.call("tabs.close", { target });
    expect((await closed).find((event) => event.target === target)?.reason).to.equal("closed");
    // Instance 2 sends everything in order: once a later tab.opened is here, any second tab.closed would be too.
    const later = collect<{ clientId: string }>(one, "tab.opened", {
      done: (all) => all.some((event) => event.clientId === "later"),
      timeoutMs: 10_000,
    });
    await two.call("tabs.open", { clientId: "later", url: "about:blank" });
    await later;
    expect((await closed).filter((event) => event.target === target)).to.have.length(1);
  });

  it("tells instance 1 of a new title in instance 2's tab (tab.updated), and instance 1's tabs.list shows it", async () => {
    await one.call("events.subscribe", { topics: ["tabs"] });
    const { target } = await two.call<{ target: string }>("tabs.open", { clientId: "titled", url: "data:text/html,<title>old</title>" });
    const updated = collect<{ target: string; title: string }>(one, "tab.updated", {
      done: (all) => all.some((event) => event.target === target && event.title === "renamed on two"),
      timeoutMs: 10_000,
    });
    await two.call("evaluate", { target, expression: "document.title = 'renamed on two'" });
    expect((await updated).find((event) => event.title === "renamed on two")).to.deep.include({ target, clientId: "titled" });
    // The event goes out after instance 2's listing is rewritten: instance 1 lists the new title once it has it.
    const { tabs } = await one.call<{ tabs: { target: string; title: string }[] }>("tabs.list", { clientId: "titled" });
    expect(tabs.find((tab) => tab.target === target)?.title).to.equal("renamed on two");
    await two.call("tabs.close", { target });
  });

  it("runs an agent task from instance 1 on an agent connected to instance 2, with its status notifications", async () => {
    await one.call("events.subscribe", { topics: ["agents"] });
    const ready = agentReady("worker:default");
    worker = await agent(2, "worker", "on two");
    await ready;
    const statuses = collect<{ target: string; message: string }>(one, "agent.status", {
      done: (all) => all.length >= 1,
      timeoutMs: 10_000,
    });
    const result = await one.call<{ output: string }>("agent.run", { target: "worker:default", input: "hello" });
    expect(result.output).to.equal("on two: hello");
    expect((await statuses)[0]).to.include({ target: "worker:default", message: "half way" });
  });

  it("cancels a forwarded call on the instance that runs it: the spinning page is terminated and answers again", async () => {
    const spinning = one.call("evaluate", { target: tabOfThree, expression: "while (true) {}", timeoutMs: 25_000 }, "spin");
    const cancelled = await one.call<{ cancelled: boolean }>("cancel", { id: "spin" });
    expect(cancelled.cancelled).to.equal(true);
    expect((await rpcFailure(spinning)).code).to.equal(-32010);
    // Had the cancel not reached instance 3, the page would spin for 25 s and this would time out.
    expect(await one.call("evaluate", { target: tabOfThree, expression: "1 + 1", timeoutMs: 8_000 })).to.deep.include({ value: 2 });
  });

  it("holds the same scoping on every instance: a scoped token reaches only its client's tabs elsewhere", async () => {
    const teamTab = (await three.call<{ target: string }>("tabs.open", { clientId: "team", url: "about:blank" })).target;
    const team = await client(1, TEAM_TOKEN);
    const { tabs } = await team.call<Tabs>("tabs.list");
    expect(tabs.map((tab) => tab.target)).to.deep.equal([teamTab]);
    expect(await team.call("evaluate", { target: teamTab, expression: "'team'" })).to.deep.include({ value: "team" });
    for (const [method, params] of [
      ["evaluate", { target: tabOfThree, expression: "1" }],
      ["console.subscribe", { target: tabOfThree }],
    ] as const) {
      expect((await rpcFailure(team.call(method, params))).code, method).to.equal(TARGET_NOT_FOUND);
    }
  });

  it("serves an MCP session on instance 1 with tabs of instance 3: its scoped token's tab listed and driven, another client's tab unknown", async () => {
    const teamTab = (await three.call<{ target: string }>("tabs.open", { clientId: "team", url: "data:text/html,<title>mcp</title>" }))
      .target;
    const mcp = new Client({ name: "tabwire-cluster-test", version: "1.0.0" });
    const url = new URL(`${hub(1).url.replace(/^ws/, "http")}/mcp`);
    await mcp.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TEAM_TOKEN}` } } }));
    try {
      const tool = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> =>
        (await mcp.callTool({ name, arguments: args })) as ToolAnswer;
      const listed = await tool("tabs_list", {});
      expect((listed.structuredContent as Tabs).tabs.map((tab) => tab.target)).to.include(teamTab);
      expect((listed.structuredContent as Tabs).tabs.map((tab) => tab.target)).to.not.include(tabOfThree);
      expect((await tool("evaluate", { target: teamTab, expression: "document.title" })).structuredContent).to.deep.include({
        value: "mcp",
      });
      const foreign = await tool("evaluate", { target: tabOfThree, expression: "1" });
      expect(foreign.isError).to.equal(true);
      expect(foreign.content[0]?.text).to.match(/^TARGET_NOT_FOUND \(-32002\)/);
    } finally {
      await mcp.close();
      await three.call("tabs.close", { target: teamTab });
    }
  });

  it("reaches an agent from every instance when it connects to another instance than its tab's, and again at once when it moves", async () => {
    const { target } = await one.call<{ target: string }>("tabs.open", { clientId: "roamer", url: "data:text/html,<title>roamer</title>" });
    const runFromEach = async (expected: string): Promise<void> => {
      for (const [n, caller] of [
        [1, one],
        [2, two],
        [3, three],
      ] as const) {
        const result = await caller.call<{ output: string }>("agent.run", { target, input: `from ${n}`, timeoutMs: 15_000 });
        expect(result.output, `agent.run from instance ${n}`).to.equal(`${expected}: from ${n}`);
      }
    };
    await one.call("events.subscribe", { topics: ["agents"] });
    const ready = agentReady(target);
    const first = await agent(2, target, "on two");
    await ready;
    await runFromEach("on two");
    // The moved agent's `ready` goes to instance 3 on its own socket, a call through Redis could come first: until it
    // is read there, agent.run answers "has not said ready yet", as on one hub. Its agent.ready says it was.
    const readyAgain = agentReady(target);
    await agent(3, target, "on three");
    await readyAgain;
    // Closed once instance 3's claim fenced instance 2 off: from then on the registry names instance 3.
    expect((await first.closed).code).to.equal(1000);
    await runFromEach("on three");
  });

  it("forgets a killed instance's targets within the TTL; its calls fail fast and nothing hangs", async () => {
    const ready = agentReady("scout:default");
    await agent(3, "scout", "on three");
    await ready;
    let killedAt = Number.POSITIVE_INFINITY;
    const hanging = rpcFailure(
      one.call("evaluate", { target: tabOfThree, expression: "new Promise(() => {})", timeoutMs: EVENT_BUDGET_MS }),
    ).then((error) => ({ code: error.code, msAfterKill: Date.now() - killedAt }));
    // The forwarded call is running on instance 3 once instance 3 answers a later call of the same connection.
    await one.call("console.subscribe", { target: tabOfThree });
    const detached = collect<{ target: string; reason: string }>(one, "tab.closed", {
      done: (all) => all.some((event) => event.target === tabOfThree),
      timeoutMs: 10_000,
    });
    killedAt = Date.now();
    await killHub(hub(3));
    const inFlight = await hanging;
    // Instances check every third of the TTL that the ones they wait on still listen: far sooner than its budget.
    expect(inFlight.code).to.equal(TARGET_NOT_FOUND);
    expect(inFlight.msAfterKill).to.be.below(TTL_MS + REPLY_SLACK_MS);
    expect((await detached).find((event) => event.target === tabOfThree)?.reason).to.equal("detached");
    // Fast: not TIMEOUT, and sooner than a check of whether instance 3 still listens would take.
    const tab = await timedFailure(one.call("evaluate", { target: tabOfThree, expression: "1", timeoutMs: EVENT_BUDGET_MS }));
    expect(tab.code).to.equal(TARGET_NOT_FOUND);
    expect(tab.ms).to.be.below(TTL_MS);
    const task = await timedFailure(one.call("agent.run", { target: "scout:default", input: "x", timeoutMs: EVENT_BUDGET_MS }));
    expect([AGENT_UNAVAILABLE, TARGET_NOT_FOUND]).to.include(task.code);
    expect(task.ms).to.be.below(TTL_MS);
    await eventually(
      async () => {
        const [{ tabs }, { clients: listed }] = await Promise.all([one.call<Tabs>("tabs.list"), one.call<Clients>("clients.list")]);
        return !tabs.some((t) => t.target === tabOfThree) && !listed.some((entry) => entry.clientId === "scout");
      },
      FORGOTTEN_WITHIN_MS,
      "instance 3's tab and agent leaving the lists",
    );
    expect(Date.now() - killedAt).to.be.below(FORGOTTEN_WITHIN_MS);
    const response = await fetch(`${hub(1).url.replace("ws:", "http:")}/clients`, { headers: { authorization: `Bearer ${FULL_TOKEN}` } });
    expect(JSON.stringify(await response.json())).not.to.include(tabOfThree);
  });

  it("reaches the killed instance's agent again at once when it reconnects to another instance", async () => {
    const ready = agentReady("scout:default");
    await agent(2, "scout", "back on two");
    // The event goes out once the registry names instance 2 as its owner, well within the dead owner's TTL.
    await ready;
    const result = await one.call<{ output: string }>("agent.run", { target: "scout:default", input: "hello", timeoutMs: 15_000 });
    expect(result.output).to.equal("back on two: hello");
  });

  it("reaches instance 2's agent again once it reconnects to instance 1: the stale connection is fenced off", async () => {
    const stale = worker as TestAgent;
    const moved = await agent(1, "worker", "on one");
    const closed = await stale.closed;
    expect(closed.code).to.equal(1000);
    await eventually(
      async () =>
        (await two.call<{ output: string }>("agent.run", { target: "worker:default", input: "again", timeoutMs: 5_000 })).output ===
        "on one: again",
      10_000,
      "instance 2 reaching the moved agent",
    );
    expect((await one.call<{ output: string }>("agent.run", { target: "worker:default", input: "here" })).output).to.equal("on one: here");
    expect(moved.requests("evaluate").length).to.be.at.least(2);
    expect(stale.requests("evaluate").length, "calls that reached the fenced-off connection").to.equal(1);
  });

  it("fails forwarded calls within their budget while Redis is down, and recovers by itself when it is back", async () => {
    const server = redis as RedisServer;
    await server.kill();
    const before = await hubAnswerMs(hub(1).url, { method: "evaluate", token: FULL_TOKEN });
    const failed = await rpcFailure(one.call("evaluate", { target: tabOfTwo, expression: "1", timeoutMs: 3_000 }));
    expect([TARGET_NOT_FOUND, TIMEOUT]).to.include(failed.code);
    // As instance 1 measures it, from the call's arrival to its answer (the sockets and the test add a slow day's lag).
    const took = (await hubAnswerMs(hub(1).url, { method: "evaluate", token: FULL_TOKEN })) - before;
    expect(took, "ms from the call's arrival to its answer").to.be.below(3_000 + ANSWER_GRACE_MS + TIMER_LAG_MS);
    expect(await two.call("evaluate", { target: tabOfTwo, expression: "'local still works'" })).to.deep.include({
      value: "local still works",
    });
    await server.restart();
    await eventually(
      async () =>
        (await one.call<{ value?: unknown }>("evaluate", { target: tabOfTwo, expression: "2 * 21", timeoutMs: 2_000 })).value === 42,
      15_000,
      "a forwarded call after Redis restarted",
    );
    await eventually(
      async () => (await one.call<Tabs>("tabs.list")).tabs.some((tab) => tab.target === tabOfTwo),
      10_000,
      "instance 2's tab listed again",
    );
    const reachAgent = async (): Promise<boolean> =>
      (await two.call<{ output: string }>("agent.run", { target: "worker:default", input: "after", timeoutMs: 2_000 })).output ===
      "on one: after";
    await eventually(reachAgent, 10_000, "instance 2 reaching the agent on instance 1 again");
  });
});
