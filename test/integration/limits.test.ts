import { expect } from "chai";
import WebSocket from "ws";
import type { Hub } from "../../src/hub.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { collect } from "../support/collect.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer } from "../support/fixture-server.js";
import { samplesOf } from "../support/metrics-text.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const MAX_PAYLOAD = 65_536;
const MAX_BATCH = 6;
const MAX_INFLIGHT = 6;
const HEARTBEAT_MS = 300;
const MiB = 1024 * 1024;

type Frame = Record<string, unknown>;

/** A frame of exactly `bytes` bytes: a ping padded with an unknown param (answered -32602, but answered). */
function paddedPing(id: number, bytes: number): string {
  const empty = JSON.stringify({ jsonrpc: "2.0", method: "ping", id, params: { pad: "" } });
  return JSON.stringify({ jsonrpc: "2.0", method: "ping", id, params: { pad: "x".repeat(bytes - empty.length) } });
}

/** Resolves with the next frame a raw socket receives, parsed. */
function nextFrame(ws: WebSocket, timeoutMs = 10_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no frame within ${timeoutMs} ms`)), timeoutMs);
    ws.once("message", (data) => {
      clearTimeout(timer);
      resolve(JSON.parse((data as Buffer).toString("utf8")));
    });
  });
}

/** Resolves with the close code of a socket, or rejects after `timeoutMs`. */
function closeCode(ws: WebSocket, timeoutMs = 10_000): Promise<number> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.reject(new Error("the socket closed before the test listened"));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the socket did not close within ${timeoutMs} ms`)), timeoutMs);
    ws.once("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** A bare agent socket on /agent that has registered (and said ready), for frames TestAgent cannot send. */
async function rawAgent(
  baseUrl: string,
  clientId: string,
  options: WebSocket.ClientOptions & { onPing?: () => void } = {},
): Promise<WebSocket> {
  const { onPing, ...wsOptions } = options;
  const ws = new WebSocket(`${baseUrl}/agent`, wsOptions);
  // Counted from the start: a heartbeat's ping can come in the same packet as the upgrade's answer.
  if (onPing) ws.on("ping", onPing);
  const welcome = nextFrame(ws);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  expect(await welcome).to.have.property("type", "welcome");
  const ack = nextFrame(ws);
  ws.send(JSON.stringify({ type: "register", clientId, capabilities: { tools: ["chat"] } }));
  expect(await ack).to.include({ type: "registration_ack", status: "accepted" });
  ws.send(JSON.stringify({ type: "ready" }));
  return ws;
}

describe("limits: MAX_PAYLOAD, MAX_BATCH, MAX_INFLIGHT and the heartbeat (real hub)", function () {
  this.timeout(30_000);
  let hub: Hub;

  before(async () => {
    hub = await startTestHub({
      MAX_PAYLOAD: String(MAX_PAYLOAD),
      MAX_BATCH: String(MAX_BATCH),
      MAX_INFLIGHT: String(MAX_INFLIGHT),
      HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
    });
  });
  after(async () => hub.stop());

  it("a frame of exactly MAX_PAYLOAD bytes is answered; one byte more closes /rpc with 1009", async () => {
    const client = await connect(hub);
    client.sendRaw(paddedPing(1, MAX_PAYLOAD));
    expect(await client.nextFrame()).to.deep.include({ jsonrpc: "2.0", id: 1 });
    const closed = closeCode(client.ws);
    client.sendRaw(paddedPing(2, MAX_PAYLOAD + 1));
    expect(await closed).to.equal(1009);
  });

  it("a frame over MAX_PAYLOAD on an agent socket closes it with 1009, and the hub forgets the agent", async () => {
    const watcher = await connect(hub);
    await watcher.call("events.subscribe", { topics: ["agents"] });
    const gone = collect<{ target: string }>(watcher, "agent.disconnected", (all) => all.some((a) => a.target === "bulky:t1"));
    const agent = await rawAgent(hub.url, "bulky:t1");
    const closed = closeCode(agent);
    agent.send(paddedPing(1, MAX_PAYLOAD + 1));
    expect(await closed).to.equal(1009);
    await gone;
    const { clients } = await watcher.call<{ clients: { clientId: string; agent: unknown }[] }>("clients.list");
    expect(clients.find((c) => c.clientId === "bulky")?.agent ?? null).to.equal(null);
    await watcher.close();
  });

  it("a batch of MAX_BATCH requests is answered in full; one more is refused as a whole, on /rpc and on the agent socket", async () => {
    const batch = (size: number): string =>
      JSON.stringify(Array.from({ length: size }, (_, i) => ({ jsonrpc: "2.0", method: "ping", id: i })));
    const refused = {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: `Invalid Request: a batch of ${MAX_BATCH + 1} requests; at most ${MAX_BATCH} (MAX_BATCH) per batch` },
    };
    const client = await connect(hub);
    client.sendRaw(batch(MAX_BATCH));
    const full = (await client.nextFrame()) as { id: number; result?: { pong: boolean } }[];
    expect(full.map((r) => [r.id, r.result?.pong])).to.deep.equal(Array.from({ length: MAX_BATCH }, (_, i) => [i, true]));
    client.sendRaw(batch(MAX_BATCH + 1));
    expect(await client.nextFrame()).to.deep.equal(refused);
    await client.close();

    const agent = await rawAgent(hub.url, "batcher:t1");
    const agentFull = nextFrame(agent);
    agent.send(batch(MAX_BATCH));
    expect(await agentFull)
      .to.be.an("array")
      .with.length(MAX_BATCH);
    const agentRefused = nextFrame(agent);
    agent.send(batch(MAX_BATCH + 1));
    expect(await agentRefused).to.deep.equal(refused);
    agent.close();
  });

  it("the items of a batch count against MAX_INFLIGHT; other connections are not held back, and the room comes back", async () => {
    const client = await connect(hub);
    const other = await connect(hub);
    const tab = await openTab(client);
    try {
      const slow = (i: number): Frame => ({
        jsonrpc: "2.0",
        method: "evaluate",
        id: i,
        params: { target: tab.target, expression: `new Promise((r) => setTimeout(() => r(${i}), 400))` },
      });
      const half = MAX_INFLIGHT / 2 + 1;
      client.sendRaw(JSON.stringify(Array.from({ length: half }, (_, i) => slow(i))));
      client.sendRaw(JSON.stringify(Array.from({ length: half }, (_, i) => slow(half + i))));
      expect(await other.call("ping")).to.have.property("pong", true);
      type Answer = { id: number; result?: { value: number }; error?: { code: number } };
      const answers = [...((await client.nextFrame()) as Answer[]), ...((await client.nextFrame()) as Answer[])];
      const outcome = answers.sort((a, b) => a.id - b.id).map((a) => a.error?.code ?? a.result?.value);
      expect(outcome).to.deep.equal([0, 1, 2, 3, 4, 5, -32011, -32011]);
      expect(await evaluate(client, tab.target, "6 * 7")).to.deep.equal({ type: "number", value: 42 });
    } finally {
      await closeTab(client, tab.target);
      await Promise.all([client.close(), other.close()]);
    }
  });

  // Within two intervals as the hub counts them: one beat pings, the next one drops the peer that did not answer. A
  // peer dropped later would have seen a second ping; the wall clock would add a slow machine's lag.
  it("an /rpc peer that never answers pings (autoPong: false) is dropped within two heartbeat intervals", async () => {
    const ws = new WebSocket(`${hub.url}/rpc`, { autoPong: false });
    // Counted from the start: a heartbeat's ping can come in the same packet as the upgrade's answer, read before "open" is handled.
    let pings = 0;
    ws.on("ping", () => pings++);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    await closeCode(ws, 20_000);
    expect(pings, "pings before the hub dropped the peer").to.equal(1);
  });

  it("an agent that never answers pings is dropped within two heartbeat intervals, and its clients see it leave", async () => {
    const watcher = await connect(hub);
    await watcher.call("events.subscribe", { topics: ["agents"] });
    const gone = collect<{ target: string }>(watcher, "agent.disconnected", {
      done: (all) => all.some((a) => a.target === "mute:t1"),
      timeoutMs: 20_000,
    });
    let pings = 0;
    const agent = await rawAgent(hub.url, "mute:t1", { autoPong: false, onPing: () => pings++ });
    await gone;
    expect(agent.readyState).to.be.oneOf([WebSocket.CLOSING, WebSocket.CLOSED]);
    if (agent.readyState !== WebSocket.CLOSED) await new Promise((resolve) => agent.once("close", resolve));
    expect(pings, "pings before the hub dropped the agent").to.equal(1);
    await watcher.close();
  });
});

/** The underlying TCP socket of a client, to stop reading from it. */
function tcpOf(client: TestRpcClient): { pause(): void; resume(): void } {
  return (client.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
}

describe("a client that stops reading (hub in a child process)", function () {
  this.timeout(60_000);
  const SLOW_READER_TIMEOUT_MS = 200;
  // console.list of a tab that logged 20 messages of 30,000 characters (text and argument) answers about 1.2 MB: a
  // cheap way to make the hub write a lot.
  const LOG_PAGE = "for (let i = 0; i < 20; i++) console.log(String(i) + 'x'.repeat(30000))";
  let hub: ChildHub;

  before(async () => {
    hub = await startChildHub(
      {
        SEND_HIGH_WATER_BYTES: String(MiB),
        SLOW_READER_TIMEOUT_MS: String(SLOW_READER_TIMEOUT_MS),
        // A stalled reader does not answer pings either; the heartbeat must not be what drops it here.
        HEARTBEAT_INTERVAL_MS: "600000",
      },
      { inspect: true },
    );
  });
  after(async () => hub?.stop());

  /** Sends a console.list of `target` every 10 ms until stopped; returns the stop function and the count sent. */
  function flood(client: TestRpcClient, target: string): { stop(): number } {
    let sent = 0;
    const timer = setInterval(() => {
      sent++;
      client.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "console.list", id: `flood-${sent}`, params: { target, limit: 1000 } }));
    }, 10);
    return {
      stop: () => {
        clearInterval(timer);
        return sent;
      },
    };
  }

  it("is closed with 1013 once over SEND_HIGH_WATER_BYTES for SLOW_READER_TIMEOUT_MS, and the hub's memory stays bounded", async () => {
    const client = await TestRpcClient.connect(hub.url);
    try {
      await overTheMark(client);
    } finally {
      client.ws.terminate();
    }
  });

  /** Asks for far more than the high-water mark without reading, then reads again and checks what the hub did. */
  async function overTheMark(client: TestRpcClient): Promise<void> {
    const tab = await openTab(client);
    await evaluate(client, tab.target, { expression: LOG_PAGE, captureConsole: false });
    const answerBytes = JSON.stringify(await client.call("console.list", { target: tab.target, limit: 1000 })).length;
    expect(answerBytes).to.be.above(900_000);

    let received = 0;
    client.ws.on("message", (data: Buffer) => (received += data.length));
    const closed = closeCode(client.ws, 20_000);
    const readBefore = await consoleListsRead();
    const rssBefore = hub.rssBytes();
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, hub.rssBytes())), 25);
    tcpOf(client).pause();
    const sending = flood(client, tab.target);
    // The paused client cannot see the close yet; the hub's log says when it starts it.
    const dropping = (): number => hub.output().split("closing a connection that stopped reading").length - 1;
    const droppedBefore = dropping();
    await eventually(async () => dropping() > droppedBefore, 15_000, "the hub dropping the stalled reader");
    const attempted = sending.stop() * answerBytes;
    clearInterval(sampler);
    tcpOf(client).resume();
    const code = await closed;
    const growth = peak - rssBefore;
    // Every request the hub reads is counted in /metrics once it is answered or cancelled; the drop cancels the rest.
    await eventually(async () => (await inflightCalls()) === 0, 15_000, "the dropped connection's calls to end");
    const read = (await consoleListsRead()) - readBefore;
    process.stdout.write(
      `      (asked for ${(attempted / MiB).toFixed(0)} MiB without reading; the hub read ${read} of ${(attempted / answerBytes).toFixed(0)} requests; ` +
        `received ${(received / MiB).toFixed(1)} MiB before the close; peak hub RSS growth ${(growth / MiB).toFixed(1)} MiB)\n`,
    );
    expect(code).to.equal(1013);
    expect(received).to.be.below(attempted / 2);
    // What the hub can hold for the peer is bounded by what it read: it stops reading while over the mark.
    expect(read * answerBytes, "bytes of answers the hub took on").to.be.below(attempted / 2);
    // RSS also counts garbage the collector has not reached yet, which varies with the machine's load: a wide cap.
    expect(growth).to.be.below(128 * MiB);
  }

  /** How many console.list requests the hub has read so far (answered or cancelled, any outcome). */
  async function consoleListsRead(): Promise<number> {
    const read = samplesOf(await metricsText(), "tabwire_requests_total").filter((sample) => sample.labels.method === "console.list");
    return read.reduce((sum, sample) => sum + sample.value, 0);
  }

  async function inflightCalls(): Promise<number> {
    return samplesOf(await metricsText(), "tabwire_inflight_calls")[0]?.value ?? NaN;
  }

  async function metricsText(): Promise<string> {
    return (await fetch(`${hub.url.replace("ws:", "http:")}/metrics`)).text();
  }

  it("has its in-flight calls cancelled when the hub drops it: its spinning evaluation stops at once", async () => {
    const fixtures = await startFixtureServer();
    const stalled = await TestRpcClient.connect(hub.url);
    const observer = await TestRpcClient.connect(hub.url);
    const spinTab = await openTab(observer);
    const logTab = await openTab(observer);
    let sending: { stop(): number } | null = null;
    try {
      await evaluate(observer, logTab.target, { expression: LOG_PAGE, captureConsole: false });
      const expression = `fetch("${fixtures.origin}/mark?name=stalled-spin", { mode: "no-cors", keepalive: true }); while (true) {}`;
      void stalled.call("evaluate", { target: spinTab.target, expression, timeoutMs: EVENT_BUDGET_MS }).catch(() => undefined);
      await fixtures.waitForMark("stalled-spin");
      tcpOf(stalled).pause();
      sending = flood(stalled, logTab.target);
      // Answered only once the hub dropped the stalled reader and stopped its script: the spin would otherwise run to
      // the end of its budget, far past this call's.
      const answer = await observer
        .call("evaluate", { target: spinTab.target, expression: "1 + 1", timeoutMs: EVENT_BUDGET_MS / 3 })
        .catch((e: Error) => e);
      expect(answer, "the tab stayed wedged by the dropped connection's evaluation").to.deep.equal({ type: "number", value: 2 });
    } finally {
      sending?.stop();
      stalled.ws.terminate();
      await closeTab(observer, spinTab.target);
      await closeTab(observer, logTab.target);
      await observer.close();
      await fixtures.close();
    }
  });

  it("a tab that logs huge messages costs bounded hub memory: the console buffer is bounded in bytes, not only in count", async () => {
    const client = await TestRpcClient.connect(hub.url);
    const tab = await openTab(client);
    try {
      const heapBefore = await hub.liveHeapBytes();
      const rssBefore = hub.rssBytes();
      // 200 messages of 1 MB each: far under the buffer's 1,000 messages, far over any sensible byte budget.
      const expression = "for (let i = 0; i < 200; i++) console.log(String(i).padStart(3, '0') + 'x'.repeat(1000000))";
      await evaluate(client, tab.target, { expression: expression, captureConsole: false, timeoutMs: 60_000 });
      const { messages } = await client.call<{ messages: { text: string }[] }>("console.list", { target: tab.target, limit: 1 });
      const rssGrowth = hub.rssBytes() - rssBefore;
      // What the hub holds on to; RSS also counts garbage not yet collected, which varies from machine to machine.
      const heapGrowth = (await hub.liveHeapBytes()) - heapBefore;
      process.stdout.write(
        `      (a tab logged 200 MB; the hub's live heap grew by ${(heapGrowth / MiB).toFixed(1)} MiB, its RSS by ${(rssGrowth / MiB).toFixed(1)} MiB)\n`,
      );
      expect(messages).to.have.length(1);
      expect(messages[0]?.text.startsWith("199")).to.equal(true);
      expect(heapGrowth).to.be.below(16 * MiB);
    } finally {
      await closeTab(client, tab.target);
      await client.close();
    }
  });
});
