import { expect } from "chai";
import WebSocket from "ws";
import type { Hub } from "../../src/hub.js";
import { FrameGenerator } from "../support/fuzz-frames.js";
import { loadMethodSpecs, type FuzzFrame } from "../support/fuzz-rules.js";
import { AnswerLedger, describeCrashes, summarize, type Finding, type Response } from "../support/fuzz-ledger.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { LONG_TEST_TIMEOUT_MS, Progress, unlessStalled } from "../support/progress.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const FRAME_COUNT = Number(process.env.FUZZ_FRAMES ?? 100_000);
// Below MAX_INFLIGHT (256): the hub may still answer OVERLOADED (notifications count too), which is a valid answer.
const WINDOW = 192;
// Calls on the fuzzer's tab queue up in one renderer: a limited number at a time keep their small budgets meaningful.
const TAB_WINDOW = 24;
const MAX_OPENED_TABS = 8;
const CONTROL_EVERY_FRAMES = 400;
// The run fails when nothing moves for this long, never on its total time (about 3 minutes on a good day, twice
// that on a slow one): every call it sends has a budget of DEFAULT_TIMEOUT_MS (5 s), so only a hub that stopped
// answering goes this long without an answer.
const STALL_MS = 30_000;
// The control client's calls: a budget far above their usual answer (under 100 ms, a few seconds on a slow day).
const CONTROL_BUDGET_MS = 15_000;
// Past the budget and its grace, a control call the hub never answered is reported rather than awaited.
const CONTROL_DEADLINE_MS = CONTROL_BUDGET_MS + 5_000;
const SEND_HIGH_WATER_BYTES = 1024 * 1024;
const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
const CONTROL_TOKEN = "control-token-for-fuzz";
const FUZZ_TOKEN = "fuzz-token-for-fuzz";
const FUZZ_CLIENT = "fuzzclient";

/** The control client: its own tab, checked with a changing expression while the fuzzer runs. */
class ControlClient {
  checks = 0;
  maxLatencyMs = 0;
  #marker = `m${SEED}`;

  private constructor(
    readonly client: TestRpcClient,
    readonly target: string,
  ) {}

  static async open(hub: Hub): Promise<ControlClient> {
    const client = await connect(hub, { token: CONTROL_TOKEN });
    const { target } = await openTab(client, "about:blank", { clientId: "control" });
    const control = new ControlClient(client, target);
    await evaluate(client, target, `window.__fuzzMarker = ${JSON.stringify(control.#marker)}`);
    return control;
  }

  /** Evaluates `marker:a*b` on the control tab; a wrong, failed or late answer is a finding. */
  async check(n: number, findings: Finding[]): Promise<void> {
    const a = n % 9973;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error("no answer within the deadline")), CONTROL_DEADLINE_MS)),
    );
    try {
      const call = evaluate<{ value?: unknown }>(this.client, this.target, {
        expression: `window.__fuzzMarker + ":" + (${a} * 7)`,
        timeoutMs: CONTROL_BUDGET_MS,
      });
      const { value } = await Promise.race([call, late]);
      if (value !== `${this.#marker}:${a * 7}`) findings.push({ kind: "control", frame: n, answer: JSON.stringify(value) });
    } catch (error) {
      findings.push({ kind: "control", frame: n, answer: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
    this.checks++;
    this.maxLatencyMs = Math.max(this.maxLatencyMs, performance.now() - started);
  }
}

/**
 * Opens a new tab for the fuzzer when its own one is gone (a fuzzed tabs.close, or the hub closing it as hung), so
 * the tab methods keep being fuzzed on a live tab; returns whether it did.
 */
async function keepOwnTab(side: TestRpcClient, targets: { own: string }): Promise<boolean> {
  const { tabs } = await side.call<{ tabs: { target: string }[] }>("tabs.list");
  if (tabs.some((tab) => tab.target === targets.own)) return false;
  targets.own = (await side.call<{ target: string }>("tabs.open", {})).target;
  return true;
}

/** Opens a raw /rpc socket with the fuzzing token. */
function openFuzzSocket(hub: Hub): Promise<WebSocket> {
  const ws = new WebSocket(`${hub.url}/rpc`, { headers: { authorization: `Bearer ${FUZZ_TOKEN}` } });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

/** Resolves with the close code of a socket (after an error too). */
function closeCode(ws: WebSocket): Promise<number> {
  ws.on("error", () => {});
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve(-1);
  return new Promise((resolve) => ws.once("close", (code) => resolve(code)));
}

/** Sends a frame; waits for it to be written when the socket's buffer is full. */
async function sendFrame(ws: WebSocket, frame: FuzzFrame): Promise<void> {
  if (ws.bufferedAmount < SEND_HIGH_WATER_BYTES) return void ws.send(frame.data, { binary: frame.binary });
  await new Promise<void>((resolve) => ws.send(frame.data, { binary: frame.binary }, () => resolve()));
}

/** Calls a method over a raw socket and resolves with its response. */
function rawCall(ws: WebSocket, request: { id: string; method: string; params: object }): Promise<Response> {
  const { id } = request;
  return new Promise((resolve) => {
    const onMessage = (data: Buffer): void => {
      const response = JSON.parse(data.toString("utf8")) as Response;
      if (response.id !== id) return;
      ws.off("message", onMessage);
      resolve(response);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ jsonrpc: "2.0", ...request }));
  });
}

describe(`fuzzing /rpc with ${FRAME_COUNT.toLocaleString("en")} seeded malformed and random frames (docs/protocol.md sections 4 and 9)`, function () {
  this.timeout(LONG_TEST_TIMEOUT_MS);
  let hub: Hub;
  let control: ControlClient;
  let fuzz: WebSocket;
  let side: TestRpcClient;
  let ownTarget: string;
  /** How many times the fuzzer's own tab was gone and replaced. */
  let ownReplaced = 0;
  const crashes: string[] = [];
  let crashesReported = 0;
  const onCrash = (error: unknown): void => void crashes.push((error as Error)?.stack ?? String(error));

  before(async () => {
    process.on("unhandledRejection", onCrash);
    process.on("uncaughtExceptionMonitor", onCrash);
    hub = await startTestHub({
      HUB_TOKEN: CONTROL_TOKEN,
      HUB_TOKENS: `${FUZZ_TOKEN}:${FUZZ_CLIENT}`,
      AUTH_KEY: "agent-key-fuzzing",
      DEFAULT_TIMEOUT_MS: "5000",
      MAX_PAYLOAD: String(MAX_PAYLOAD_BYTES),
    });
    control = await ControlClient.open(hub);
    fuzz = await openFuzzSocket(hub);
    side = await connect(hub, { token: FUZZ_TOKEN });
    const opened = await rawCall(fuzz, { id: "open", method: "tabs.open", params: {} });
    ownTarget = (opened.result as { target: string }).target;
  });

  after(async () => {
    fuzz?.terminate();
    await side?.close();
    await control?.client.close();
    await hub?.stop();
    await new Promise((resolve) => setImmediate(resolve));
    process.off("unhandledRejection", onCrash);
    process.off("uncaughtExceptionMonitor", onCrash);
    const late = crashes.slice(crashesReported);
    if (late.length > 0) throw new Error(`the hub threw ${late.length} uncaught error(s) while stopping:\n${describeCrashes(late)}`);
  });

  it("answers every well-formed request exactly once, notifications never, invalid frames per JSON-RPC 2.0, and the control client throughout", async () => {
    const controlTabId = control.target.slice(control.target.indexOf(":") + 1);
    const ledger = new AnswerLedger(controlTabId);
    const targets = { own: ownTarget, ownClientId: FUZZ_CLIENT, foreign: [control.target] };
    const generator = new FrameGenerator({
      seed: SEED,
      targets,
      maxBatch: hub.services.config.maxBatch,
      methods: loadMethodSpecs(),
      maxOpenedTabs: MAX_OPENED_TABS,
      maxSubscriptions: 4,
    });
    fuzz.on("message", (data: Buffer) => ledger.receive(data.toString("utf8")));
    let closed: number | null = null;
    fuzz.once("close", (code, reason) => {
      closed = code;
      ledger.findings.push({ kind: "closed", answer: `the hub closed the fuzzing connection: ${code} ${reason.toString()}` });
      ledger.interrupt();
    });
    const categories = new Map<string, number>();
    const progress = new Progress("frames");
    let stopped = false;
    const sendAll = async (): Promise<void> => {
      while (progress.done < FRAME_COUNT && closed === null && !stopped) {
        const frame = generator.next();
        const category = frame.category.split("/")[0] ?? "";
        categories.set(category, (categories.get(category) ?? 0) + 1);
        // A wedged tab answers everything with TIMEOUT after its budget: pipelined, those calls no longer hold the run up.
        const tabWindow = ledger.wedged ? WINDOW : TAB_WINDOW;
        const mustWait = (): boolean =>
          ledger.outstanding >= WINDOW || (frame.touchesTab && ledger.tabOutstanding >= tabWindow) || ledger.owesAnyOf(frame);
        while (mustWait() && closed === null) {
          const stalled = await ledger.nextAnswer(STALL_MS).then(
            () => false,
            () => true,
          );
          if (stalled)
            ledger.findings.push({
              kind: "stalled",
              frame: frame.index,
              answer: `${ledger.outstanding} answers owed, none for ${STALL_MS} ms`,
            });
          if (stalled) break;
        }
        ledger.expect(frame);
        await sendFrame(fuzz, frame);
        progress.step();
        if (progress.done % CONTROL_EVERY_FRAMES === 0) {
          await control.check(progress.done, ledger.findings);
          if (await keepOwnTab(side, targets)) ownReplaced++;
        }
      }
    };
    // Sending, the control checks and replacing the fuzzer's tab: each step is bounded by an answer, which a hub that
    // stopped answering never gives.
    await unlessStalled(sendAll(), { progress, stallMs: 2 * STALL_MS, onStall: () => void (stopped = true) });
    const sent = progress.done;
    ownTarget = targets.own;
    const sentPace = progress.pace();
    if (closed === null) await ledger.drain(STALL_MS);
    const totalS = progress.elapsedMs / 1000;
    if (crashes.length > 0) ledger.findings.push({ kind: "crash", answer: describeCrashes(crashes) });
    const outcomes = [...ledger.outcomes.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([code, n]) => `${code}: ${n}`)
      .join(", ");
    console.log(
      [
        `  fuzz seed ${SEED} (FUZZ_SEED): ${sentPace} sent, all answers in ${totalS.toFixed(1)} s (${Math.round(sent / totalS)} frames/s)`,
        `  frames by category: ${[...categories.entries()].map(([name, n]) => `${name} ${n}`).join(", ")}`,
        `  answer frames: ${ledger.frames.objects} objects (${ledger.frames.expectedObjects} owed), ${ledger.frames.arrays} arrays (${ledger.frames.expectedArrays} owed), ${ledger.frames.notifications} notifications`,
        `  responses: ${outcomes}`,
        `  slowest kinds of frame (count, mean, max ms): ${[...ledger.latency.entries()]
          .sort((a, b) => b[1].totalMs - a[1].totalMs)
          .slice(0, 12)
          .map(([name, l]) => `${name} ${l.count}/${Math.round(l.totalMs / l.count)}/${Math.round(l.maxMs)}`)
          .join(", ")}`,
        `  control client: ${control.checks} checks, slowest ${control.maxLatencyMs.toFixed(0)} ms; the fuzzer's own tab was replaced ${ownReplaced} times (closed by a fuzzed frame, or by the hub as hung)`,
        `  findings: ${ledger.findings.length}${ledger.findings.length > 0 ? `\n${summarize(ledger.findings)}` : ""}`,
      ].join("\n"),
    );
    expect(ledger.findings.length, `seed ${SEED}, findings:\n${summarize(ledger.findings)}`).to.equal(0);
    expect(sent).to.equal(FRAME_COUNT);
    expect(ledger.frames.objects).to.equal(ledger.frames.expectedObjects);
    expect(ledger.frames.arrays).to.equal(ledger.frames.expectedArrays);
    expect(control.checks).to.be.at.least(FRAME_COUNT / CONTROL_EVERY_FRAMES);
  });

  it("closes a socket with 1009 past MAX_PAYLOAD and 1007 for text that is not UTF-8, survives sockets dropped mid-call, and carries on", async () => {
    const findings: Finding[] = [];
    const codes: number[] = [];
    const slow = (ws: WebSocket, id: number): void =>
      ws.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "evaluate",
          params: { target: ownTarget, expression: "new Promise(r => setTimeout(r, 2000))", timeoutMs: 3000 },
        }),
      );
    for (let round = 0; round < 3; round++) {
      const oversized = await openFuzzSocket(hub);
      for (let id = 0; id < 20; id++) slow(oversized, id);
      oversized.send(Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x20), { binary: round % 2 === 0 });
      codes.push(await closeCode(oversized));
      const notUtf8 = await openFuzzSocket(hub);
      notUtf8.send(Buffer.from([0x7b, 0xc0, 0x80, 0x7d]), { binary: false });
      codes.push(await closeCode(notUtf8));
      const dropped = await openFuzzSocket(hub);
      for (let id = 0; id < 50; id++) slow(dropped, id);
      dropped.terminate();
      await closeCode(dropped);
      await control.check(round, findings);
    }
    expect(codes).to.deep.equal([1009, 1007, 1009, 1007, 1009, 1007]);
    expect(findings).to.deep.equal([]);
  });

  it("is healthy afterwards: /health, a new connection, the control tab untouched, every fuzz tab closed, nothing thrown", async () => {
    const health = (await (await fetch(`${hub.url.replace("ws://", "http://")}/health`)).json()) as { ok: boolean; browser: string };
    expect(health).to.include({ ok: true, browser: "connected" });
    const fresh = await connect(hub, { token: FUZZ_TOKEN });
    try {
      expect(await fresh.call("ping")).to.have.property("pong", true);
      const { tabs } = await fresh.call<{ tabs: { target: string; url: string }[] }>("tabs.list");
      console.log(`  tabs the fuzzer left open: ${tabs.length} (its own one included); closing them`);
      console.log(`  ${tabs.map((tab) => `${tab.target} ${tab.url.slice(0, 60)}`).join(", ")}`);
      expect(tabs.length).to.be.at.most(1 + MAX_OPENED_TABS + ownReplaced);
      for (const tab of tabs) await closeTab(fresh, tab.target);
      expect((await fresh.call<{ tabs: unknown[] }>("tabs.list")).tabs).to.deep.equal([]);
      // One more round trip: the hub handles the tabs' detach events before it answers.
      await fresh.call("ping");
    } finally {
      await fresh.close();
    }
    const findings: Finding[] = [];
    await control.check(1, findings);
    expect(findings).to.deep.equal([]);
    await new Promise((resolve) => setImmediate(resolve));
    crashesReported = crashes.length;
    expect(
      crashes.length,
      `uncaught errors in the hub (a process without a handler exits on the first):\n${describeCrashes(crashes)}`,
    ).to.equal(0);
  });
});
