import { expect } from "chai";
import { CLUSTER_SECRET, droppedMessages, httpUrl, isRunning, startClusterHubs, stopHub, type ClusterHub } from "../support/cluster-hub.js";
import { FUZZ_SENDER, RedisMessageGenerator, type Captured, type FuzzMessage } from "../support/fuzz-redis.js";
import { LONG_TEST_TIMEOUT_MS } from "../support/progress.js";
import { RedisOutsider } from "../support/redis-outsider.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { requireChromium } from "../support/test-hub.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const MESSAGE_COUNT = Number(process.env.FUZZ_MESSAGES ?? 100_000);
// Published pipelined, then the control client checks both ways: its calls queue behind the batch on both inboxes.
const BATCH = 500;
const MAX_MESSAGE_BYTES = 65_536;
const CONTROL_DEADLINE_MS = 10_000;
const FULL_TOKEN = "cluster-fuzz-full-token";
const CONTROL_TOKEN = "cluster-fuzz-control-token";
const INSTANCES = ["one", "two"] as const;
const START_TIMEOUT_MS = 60_000;
// The drop counts are waited for until they stop moving for this long, never for a fixed total.
const STALL_MS = 15_000;
const POLL_MS = 50;

type Counts = Record<string, number>;

/** The control client: a connection on each instance evaluating in a tab the other instance owns. */
interface ControlPath {
  client: TestRpcClient;
  target: string;
}

describe(`fuzzing the cluster's Redis channels with ${MESSAGE_COUNT.toLocaleString("en")} seeded random, malformed, forged, stale, replayed, huge and deep messages`, function () {
  this.timeout(LONG_TEST_TIMEOUT_MS);
  let redis: RedisServer | undefined;
  let hubs: ClusterHub[] = [];
  let outsider: RedisOutsider | undefined;
  const paths: ControlPath[] = [];
  const captured: Captured[] = [];
  const marker = `m${SEED}`;

  before(async function () {
    this.timeout(START_TIMEOUT_MS + 30_000);
    requireChromium();
    redis = await startRedisServer();
    const env = { HUB_TOKENS: `${FULL_TOKEN},${CONTROL_TOKEN}:control`, CLUSTER_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES) };
    hubs = await startClusterHubs(INSTANCES, redis.url, env);
    // Keeps the control client's real calls and answers (to replay them) and anything sent to the forged sender.
    const keep = (channel: string, text: string): boolean =>
      channel === `tabwire:to:${FUZZ_SENDER}` ||
      (text.startsWith("tw1 ") && (text.includes(`${marker}:`) || text.includes("__fuzzMarker + ")));
    outsider = await RedisOutsider.connect(redis.url, { keep });
    for (const [here, there] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const owner = await TestRpcClient.connect((hubs[there] as ClusterHub).url, { token: CONTROL_TOKEN });
      const { target } = await owner.call<{ target: string }>("tabs.open", { clientId: "control", url: "about:blank" });
      await owner.call("evaluate", { target, expression: `window.__fuzzMarker = ${JSON.stringify(marker)}` });
      await owner.close();
      paths.push({ client: await TestRpcClient.connect((hubs[here] as ClusterHub).url, { token: CONTROL_TOKEN }), target });
    }
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all(paths.map((path) => path.client.close()));
    await outsider?.close();
    await Promise.all(hubs.map(stopHub));
    await redis?.stop();
  });

  it("drops every message that is not the cluster's own, each counted by its reason; every instance stays up and the control client's cross-instance calls stay correct", async () => {
    const spy = outsider as RedisOutsider;
    const generator = new RedisMessageGenerator({
      seed: SEED,
      secret: CLUSTER_SECRET,
      instances: INSTANCES,
      victims: paths.map((path) => path.target),
      maxMessageBytes: MAX_MESSAGE_BYTES,
      captured,
    });
    const expected: Record<string, Counts> = { one: {}, two: {} };
    const categories = new Map<string, number>();
    const findings: string[] = [];
    const before = await Promise.all(hubs.map((hub) => droppedMessages(hub, FULL_TOKEN)));
    const started = performance.now();
    let checks = 0;
    for (let sent = 0; sent < MESSAGE_COUNT; sent += BATCH) {
      captured.push(
        ...spy.seen
          .splice(0)
          .filter((m) => m.channel !== `tabwire:to:${FUZZ_SENDER}`)
          .map((m) => ({ text: m.text, seenAtMs: Date.now() })),
      );
      const batch = Array.from({ length: Math.min(BATCH, MESSAGE_COUNT - sent) }, () => generator.next());
      for (const message of batch) tally(message, expected, categories);
      await spy.publishAll(batch);
      for (const [n, path] of paths.entries()) findings.push(...(await check(path, marker, sent + n)));
      checks += paths.length;
      if (findings.length > 0 || !hubs.every(isRunning)) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const counts = async (): Promise<Counts[]> =>
      (await Promise.all(hubs.map((hub) => droppedMessages(hub, FULL_TOKEN)))).map((now, i) => delta(now, before[i] ?? {}));
    // The counts catch up with what was published as the instances work through their inboxes: waited for as long as
    // they move, however slow the machine.
    const wanted = JSON.stringify(INSTANCES.map((id) => sorted(expected[id] ?? {})));
    let dropped: Counts[] = await counts();
    for (let seen = JSON.stringify(dropped), movedAt = Date.now(); seen !== wanted && Date.now() - movedAt < STALL_MS;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      dropped = await counts();
      const now = JSON.stringify(dropped);
      if (now !== seen) [seen, movedAt] = [now, Date.now()];
    }
    console.log(
      [
        `  redis fuzz seed ${SEED} (FUZZ_SEED): ${MESSAGE_COUNT} messages in ${seconds.toFixed(1)} s (${Math.round(MESSAGE_COUNT / seconds)} messages/s), ${checks} control calls`,
        `  messages by category: ${[...categories.entries()].map(([name, n]) => `${name} ${n}`).join(", ")}`,
        `  dropped by instance one: ${JSON.stringify(dropped[0])}; two: ${JSON.stringify(dropped[1])}`,
      ].join("\n"),
    );
    expect(findings, `seed ${SEED}`).to.deep.equal([]);
    expect(hubs.every(isRunning), hubs.map((hub) => hub.log()).join("\n")).to.equal(true);
    expect(dropped).to.deep.equal(INSTANCES.map((id) => sorted(expected[id] ?? {})));
    expect(checks).to.equal(2 * Math.ceil(MESSAGE_COUNT / BATCH));
  });

  it("is healthy afterwards: /health, a new connection's cross-instance calls, and nothing ever answered the forged sender", async () => {
    for (const hub of hubs) expect(((await (await fetch(`${httpUrl(hub)}/health`)).json()) as { ok: boolean }).ok).to.equal(true);
    for (const [n, path] of paths.entries()) {
      const fresh = await TestRpcClient.connect((hubs[n] as ClusterHub).url, { token: CONTROL_TOKEN });
      expect(await fresh.call("evaluate", { target: path.target, expression: "window.__fuzzMarker" })).to.deep.include({ value: marker });
      await fresh.close();
    }
    expect((outsider as RedisOutsider).seen.filter((m) => m.channel === `tabwire:to:${FUZZ_SENDER}`)).to.deep.equal([]);
  });
});

/** Evaluates `marker:n*7` over a control path; a wrong, failed or late answer is a finding. */
async function check(path: ControlPath, marker: string, n: number): Promise<string[]> {
  const a = n % 9973;
  try {
    const { value } = await path.client.call<{ value?: unknown }>("evaluate", {
      target: path.target,
      expression: `window.__fuzzMarker + ":" + (${a} * 7)`,
      timeoutMs: CONTROL_DEADLINE_MS,
    });
    return value === `${marker}:${a * 7}` ? [] : [`after message ${n}: ${path.target} answered ${JSON.stringify(value)}`];
  } catch (error) {
    return [`after message ${n}: ${path.target} failed: ${(error as Error).message}`];
  }
}

/** Adds a message's expected drop to each instance that receives it (every instance for the events channel). */
function tally(message: FuzzMessage, expected: Record<string, Counts>, categories: Map<string, number>): void {
  categories.set(message.category, (categories.get(message.category) ?? 0) + 1);
  if (message.fate === "taken") return;
  const receivers = message.channel === "tabwire:events" ? INSTANCES : INSTANCES.filter((id) => message.channel === `tabwire:to:${id}`);
  for (const id of receivers) {
    const counts = (expected[id] ??= {});
    counts[message.fate] = (counts[message.fate] ?? 0) + 1;
  }
}

function delta(now: Counts, before: Counts): Counts {
  return sorted(
    Object.fromEntries(
      Object.entries(now)
        .map(([reason, count]) => [reason, count - (before[reason] ?? 0)])
        .filter(([, count]) => count !== 0),
    ),
  );
}

function sorted(counts: Counts): Counts {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
