import { expect } from "chai";
import { CLUSTER_SECRET, droppedMessages, isRunning, startClusterHubs, stopHub, type ClusterHub } from "../support/cluster-hub.js";
import { collect } from "../support/collect.js";
import { eventually } from "../support/eventually.js";
import { bodyOf, deepJson, RedisOutsider, signed, type SeenMessage } from "../support/redis-outsider.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { rpcFailure, TestRpcClient } from "../support/rpc-client.js";
import { requireChromium } from "../support/test-hub.js";

const FULL_TOKEN = "cluster-full-token";
const TEAM_TOKEN = "cluster-team-token";
const MAX_MESSAGE_BYTES = 65_536;
const START_TIMEOUT_MS = 60_000;
const COUNT_DEADLINE_MS = 10_000;
const INVALID_PARAMS = -32602;
const SERIALIZATION_FAILED = -32005;
const INBOX_ONE = "tabwire:to:one";
const INBOX_TWO = "tabwire:to:two";
const EVENTS = "tabwire:events";
// Where a forged call asks its answer to go: nothing may ever be published there.
const ATTACKER = "attacker";

type Counts = Record<string, number>;

describe("a signed cluster: what an outsider with access to Redis publishes does no harm (issue 14, finding 8)", function () {
  this.timeout(30_000);
  let redis: RedisServer | undefined;
  let hubs: ClusterHub[] = [];
  const clients: TestRpcClient[] = [];
  let outsider: RedisOutsider;
  let one: TestRpcClient;
  let two: TestRpcClient;
  let teamTab = "";
  let tabOfTwo = "";

  const hub = (n: 1 | 2): ClusterHub => hubs[n - 1] as ClusterHub;
  const client = async (n: 1 | 2, token = FULL_TOKEN): Promise<TestRpcClient> => {
    const connected = await TestRpcClient.connect(hub(n).url, { token });
    clients.push(connected);
    return connected;
  };
  const drops = (n: 1 | 2): Promise<Counts> => droppedMessages(hub(n), FULL_TOKEN);
  /** Waits until instance n has counted these many more drops by reason than `before`. */
  const counted = async (n: 1 | 2, before: Counts, more: Counts): Promise<void> => {
    let now: Counts = {};
    const matches = async (): Promise<boolean> => {
      now = await drops(n);
      return Object.entries(more).every(([reason, count]) => (now[reason] ?? 0) - (before[reason] ?? 0) === count);
    };
    await eventually(matches, COUNT_DEADLINE_MS, `instance ${n} counting ${JSON.stringify(more)} more drops`).catch((error: Error) => {
      throw new Error(`${error.message}; before ${JSON.stringify(before)}, now ${JSON.stringify(now)}`);
    });
  };
  const title = async (target: string): Promise<unknown> =>
    (await two.call<{ value?: unknown }>("evaluate", { target, expression: "document.title" })).value;
  const callOf =
    (expression: string) =>
    (message: SeenMessage): boolean =>
      message.channel === INBOX_TWO && message.body.includes(expression);

  before(async function () {
    this.timeout(START_TIMEOUT_MS + 30_000);
    requireChromium();
    redis = await startRedisServer();
    const env = { HUB_TOKENS: `${FULL_TOKEN},${TEAM_TOKEN}:team`, CLUSTER_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES) };
    hubs = await startClusterHubs(["one", "two"], redis.url, env);
    outsider = await RedisOutsider.connect(redis.url);
    [one, two] = await Promise.all([client(1), client(2)]);
    teamTab = (await two.call<{ target: string }>("tabs.open", { clientId: "team", url: "data:text/html,<title>team</title>" })).target;
    tabOfTwo = (await two.call<{ target: string }>("tabs.open", { url: "data:text/html,<title>two</title>" })).target;
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all(clients.map((c) => c.close()));
    await outsider?.close();
    await Promise.all(hubs.map(stopHub));
    await redis?.stop();
  });

  it("drops a forged call for evaluate with full scope on a scoped client's tab: unsigned, another secret, stale; the page is unchanged", async () => {
    const forged = {
      type: "call",
      id: "forged-call-1",
      from: ATTACKER,
      conn: "x",
      scope: null,
      peer: "outsider",
      method: "evaluate",
      params: { target: teamTab, expression: "document.title = 'pwned'", timeoutMs: 5_000 },
    };
    const before = await drops(2);
    await outsider.publish(INBOX_TWO, JSON.stringify(forged));
    await outsider.publish(INBOX_TWO, signed("another-secret-of-16+", forged, { to: `@${teamTab}` }));
    await outsider.publish(INBOX_TWO, signed("another-secret-of-16+", forged, { to: "two" }));
    // A message really signed with the secret, but a minute old (captured then): stale.
    await outsider.publish(INBOX_TWO, signed(CLUSTER_SECRET, forged, { to: `@${teamTab}`, atMs: Date.now() - 60_000 }));
    await counted(2, before, { unsigned: 1, forged: 2, stale: 1 });
    expect(await title(teamTab)).to.equal("team");
  });

  it("drops a real call captured on Redis and published again, to its owner and to its caller's instance; it ran once", async () => {
    const team = await client(1, TEAM_TOKEN);
    const expression = "window.runs = (window.runs || 0) + 1";
    expect(await team.call("evaluate", { target: teamTab, expression })).to.deep.include({ value: 1 });
    const captured = await outsider.waitFor(callOf(expression), "the forwarded call");
    // Not <instance>-<n> any more: 128 random bits.
    expect(bodyOf(captured).id).to.match(/^[A-Za-z0-9_-]{22}$/);
    const [beforeOne, beforeTwo] = await Promise.all([drops(1), drops(2)]);
    await outsider.publish(INBOX_TWO, captured.text);
    await outsider.publish(INBOX_ONE, captured.text);
    await Promise.all([counted(2, beforeTwo, { replayed: 1 }), counted(1, beforeOne, { replayed: 1 })]);
    expect(await two.call("evaluate", { target: teamTab, expression: "window.runs" })).to.deep.include({ value: 1 });
  });

  it("ignores a forged answer to a pending call (its id read on Redis): the real answer arrives", async () => {
    const expression = "new Promise((resolve) => setTimeout(() => resolve('real answer'), 1500))";
    const before = await drops(1);
    const pending = one.call<{ value?: unknown }>("evaluate", { target: tabOfTwo, expression });
    const { id } = bodyOf(await outsider.waitFor(callOf(expression), "the forwarded call"));
    const response = JSON.stringify({ jsonrpc: "2.0", id, result: { type: "string", value: "forged answer" } });
    const answer = { type: "answer", id, from: "two", response };
    await outsider.publish(INBOX_ONE, JSON.stringify(answer));
    await outsider.publish(INBOX_ONE, signed("another-secret-of-16+", answer, { to: "one" }));
    await counted(1, before, { unsigned: 1, forged: 1 });
    expect((await pending).value).to.equal("real answer");
  });

  it(`answers a forwarded call whose answer is over CLUSTER_MAX_MESSAGE_BYTES (${MAX_MESSAGE_BYTES}) with SERIALIZATION_FAILED at once; the owner's other calls go on`, async () => {
    const before = await drops(2);
    const other = one.call<{ value?: unknown }>("evaluate", {
      target: tabOfTwo,
      expression: "new Promise((resolve) => setTimeout(() => resolve('other call'), 300))",
    });
    const big = await rpcFailure(one.call("evaluate", { target: tabOfTwo, expression: "'x'.repeat(100000)", timeoutMs: 20_000 }));
    expect(big.code).to.equal(SERIALIZATION_FAILED);
    expect(big.message).to.match(/^the answer to evaluate was \d+ bytes, over CLUSTER_MAX_MESSAGE_BYTES \(65536\)/);
    expect(big.message).to.include("maxSize");
    expect(big.data).to.deep.include({ maxBytes: MAX_MESSAGE_BYTES });
    expect((big.data as { bytes: number }).bytes).to.be.above(100_000);
    expect((await other).value).to.equal("other call");
    // The same value fits when asked for with maxSize, and on the owner's own instance no cap applies.
    expect(await one.call("evaluate", { target: tabOfTwo, expression: "'x'.repeat(100000)", maxSize: 1_000 })).to.deep.include({
      truncated: true,
    });
    expect((await two.call<{ value: string }>("evaluate", { target: tabOfTwo, expression: "'x'.repeat(100000)" })).value.length).to.equal(
      100_000,
    );
    await counted(2, before, { too_large: 1 });
  });

  it("refuses a forwarded call whose params are over CLUSTER_MAX_MESSAGE_BYTES with INVALID_PARAMS; nothing is published", async () => {
    const marker = `big-params-${Date.now()}`;
    const expression = `'${marker}' + '${"y".repeat(MAX_MESSAGE_BYTES)}'.length`;
    const refused = await rpcFailure(one.call("evaluate", { target: tabOfTwo, expression }));
    expect(refused.code).to.equal(INVALID_PARAMS);
    expect(refused.message).to.match(
      /^params of evaluate are \d+ bytes as a message between hub instances, over CLUSTER_MAX_MESSAGE_BYTES \(65536\).*send less/,
    );
    expect(await two.call("evaluate", { target: tabOfTwo, expression })).to.deep.include({ value: `${marker}${MAX_MESSAGE_BYTES}` });
    // A later call is seen on Redis; the refused one never was.
    await one.call("evaluate", { target: tabOfTwo, expression: `'after ${marker}'` });
    await outsider.waitFor(callOf(`after ${marker}`), "the call after the refused one");
    expect(outsider.seen.some((message) => message.body.includes(`'${marker}' +`))).to.equal(false);
  });

  it("drops a console message over CLUSTER_MAX_MESSAGE_BYTES for a subscriber on another instance: console.dropped, then the next message", async () => {
    const { subscriptionId } = await one.call<{ subscriptionId: string }>("console.subscribe", { target: tabOfTwo });
    const mine = (params: { subscriptionId: string }): boolean => params.subscriptionId === subscriptionId;
    const dropped = collect<{ subscriptionId: string; count: number }>(one, "console.dropped", {
      done: (all) => all.some(mine),
      timeoutMs: 10_000,
    });
    const messages = collect<{ subscriptionId: string; text: string }>(one, "console.message", {
      done: (all) => all.some((m) => mine(m) && m.text === "small"),
      timeoutMs: 10_000,
    });
    // Each string of a console message is cut to 32 KB: three of them make a message over the cap.
    await two.call("evaluate", {
      target: tabOfTwo,
      expression: "const z = 'z'.repeat(100000); console.log(z, z, z); console.log('small')",
    });
    expect((await dropped).find(mine)?.count).to.equal(1);
    expect((await messages).filter(mine).map((m) => m.text)).to.deep.equal(["small"]);
  });

  it("stays up and serves calls after 100,000-level and 40 MB messages on its inbox and on the events channel", async () => {
    // A connection with a console subscription on the other instance and an events watcher: a notification or
    // event that reached them would be written back to its socket.
    await one.call("events.subscribe", { topics: ["tabs", "agents"] });
    await one.call("console.subscribe", { target: tabOfTwo });
    const { conn } = bodyOf(
      await outsider.waitFor((m) => m.channel === INBOX_TWO && m.body.includes('"console.subscribe"'), "the console.subscribe call"),
    );
    const deepNotify = (levels: number): string =>
      `{"type":"notify","conn":${JSON.stringify(conn)},"method":"console.message","params":{"args":${deepJson(levels)}}}`;
    const deepEvent = (levels: number): string =>
      `{"type":"event","from":"two","topic":"tabs","clientId":"team","method":"tab.opened","params":{"target":${deepJson(levels)}}}`;
    const [beforeOne, beforeTwo] = await Promise.all([drops(1), drops(2)]);
    // 100,000 levels are 200 KB, over the cap here: dropped by size first. Signed (as by an instance with a bug),
    // 30,000 levels fit the cap and are dropped for their depth.
    await outsider.publish(INBOX_ONE, deepNotify(100_000));
    await outsider.publish(INBOX_ONE, signed(CLUSTER_SECRET, deepNotify(100_000), { to: "one" }));
    await outsider.publish(INBOX_ONE, signed(CLUSTER_SECRET, deepNotify(30_000), { to: "one" }));
    await outsider.publish(EVENTS, deepEvent(100_000));
    await outsider.publish(EVENTS, signed(CLUSTER_SECRET, deepEvent(30_000), { to: "*" }));
    await outsider.publish(INBOX_ONE, "x".repeat(1024 * 1024));
    await counted(1, beforeOne, { too_large: 4, malformed: 2 });
    await counted(2, beforeTwo, { too_large: 1, malformed: 1 });
    // 40 MB is past Redis's own pub/sub output limit (32 MB): Redis closes the instances' subscriptions; they reconnect.
    const huge = `{"type":"notify","conn":${JSON.stringify(conn)},"method":"console.message","params":{"text":"${"x".repeat(40 * 1024 * 1024)}"}}`;
    await outsider.publish(INBOX_ONE, huge);
    await outsider.publish(EVENTS, huge);
    const served = async (): Promise<boolean> =>
      (await one.call<{ value?: unknown }>("evaluate", { target: tabOfTwo, expression: "6 * 7", timeoutMs: 2_000 })).value === 42 &&
      (await two.call<{ value?: unknown }>("evaluate", { target: teamTab, expression: "'served'", timeoutMs: 2_000 })).value === "served";
    await eventually(served, 20_000, "both instances serving cross-instance calls again");
    expect(hubs.every(isRunning)).to.equal(true);
    const health = await Promise.all(hubs.map(async (h) => (await fetch(`${h.url.replace("ws:", "http:")}/health`)).ok));
    expect(health).to.deep.equal([true, true]);
  });

  it("never published an answer to the forged calls' caller, and every instance is still running", () => {
    expect(outsider.seen.filter((message) => message.channel === `tabwire:to:${ATTACKER}`)).to.deep.equal([]);
    expect(hubs.every(isRunning)).to.equal(true);
  });

  it("logged each reason of a drop once (at most once a minute), never a dropped message's content", () => {
    for (const h of hubs) {
      const lines = h
        .log()
        .split("\n")
        .filter((line) => line.includes("cluster: dropped a message"));
      const reasons = lines.map((line) => /"reason":"(\w+)"/.exec(line)?.[1]);
      expect(reasons.length, h.id).to.be.at.least(2);
      expect(new Set(reasons).size, `${h.id}: ${reasons.join(", ")}`).to.equal(reasons.length);
      for (const content of ["pwned", "forged answer", "forged-call-1", "xxxxxxxx"])
        expect(h.log(), `${h.id} logged ${content}`).not.to.include(content);
    }
  });
});
