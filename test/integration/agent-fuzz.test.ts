import { expect } from "chai";
import WebSocket from "ws";
import { TabwireError, type TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { UNREGISTERED_BYTES } from "../../src/transport/registration-guard.js";
import { AgentFrameGenerator, type AgentFuzzFrame, type AgentFuzzTargets } from "../support/agent-fuzz-frames.js";
import { Rng, toJson } from "../support/fuzz-rules.js";
import { Progress, unlessStalled } from "../support/progress.js";
import { openTab } from "../support/tabs.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const FRAME_COUNT = Number(process.env.FUZZ_AGENT_FRAMES ?? 100_000);
const CONTROL_TOKEN = "agent-fuzz-control-token";
const AGENT_KEY = "agent-fuzz-agent-key-1";
const AGENT_CLIENT = "fuzzagent";
// Requests owed an answer at a time on one socket; MAX_INFLIGHT is 256, so OVERLOADED stays rare.
const WINDOW = 64;
const CONTROL_EVERY_FRAMES = 1_000;
const AGENT_RUN_EVERY_FRAMES = 2_500;
// A wait fails when the hub sends nothing for this long, never on how long the wait took in all: every request has a
// budget of DEFAULT_TIMEOUT_MS (3 s), so only a hub that stopped answering stays silent this long.
const STALL_MS = 30_000;
// The control client's calls: a budget far above their usual answer (milliseconds; a few seconds on a slow day).
const CONTROL_BUDGET_MS = 15_000;
// Frames that make the hub close the socket (a refused register) are sent now and then, not at their natural rate.
const CLOSING_FRAME_RATE = 0.01;

/** What went wrong, said so a failing run can be read. */
interface Finding {
  frame: number;
  what: string;
}

interface Waiter {
  when: () => boolean;
  resolve: () => void;
  /** Restarts the waiter's stall timer: the hub sent a frame. */
  moved: () => void;
  onText?: (text: string) => void;
}

/** What every socket of one fuzz run shares: where findings go, the seeded generator, and the frame count. */
interface FuzzRun {
  findings: Finding[];
  rng: Rng;
  frameNumber: () => number;
}

/** One fuzzing socket: the answers it is owed, and how it ended. */
class FuzzSocket {
  readonly owed = new Map<string, AgentFuzzFrame>();
  readonly closed: Promise<{ code: number; reason: string }>;
  bytes = 0;
  sentRegister = false;
  #ws: WebSocket;
  #waiters: Waiter[] = [];
  #findings: Finding[];
  #rng: Rng;
  #frame = (): number => 0;

  private constructor(ws: WebSocket, run: FuzzRun) {
    this.#ws = ws;
    this.#findings = run.findings;
    this.#rng = run.rng;
    this.#frame = run.frameNumber;
    this.closed = new Promise((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on("error", () => {});
    ws.on("message", (data) => this.#onMessage((data as Buffer).toString("utf8")));
    ws.once("close", () => this.#wake());
  }

  /** Opens a socket; registered: with the agent key, registered as the fuzzing agent and ready. */
  static async open(url: string, registered: boolean, run: FuzzRun): Promise<FuzzSocket> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const socket = new FuzzSocket(ws, run);
    if (registered) {
      const accepted = socket.#until((text) => text.includes('"registration_ack"') && text.includes('"accepted"'));
      ws.send(JSON.stringify({ type: "register", clientId: `${AGENT_CLIENT}:fuzz` }));
      await accepted;
      ws.send(JSON.stringify({ type: "ready" }));
    }
    return socket;
  }

  get isOpen(): boolean {
    return this.#ws.readyState === WebSocket.OPEN;
  }

  /** Sends a frame, waiting for room when too many answers are owed or the send buffer is full. */
  async send(frame: AgentFuzzFrame): Promise<void> {
    if (this.owed.size >= WINDOW) await this.#wait(() => this.owed.size < WINDOW / 2 || !this.isOpen, "room in the window");
    if (!this.isOpen) return;
    if (frame.id) this.owed.set(frame.id, frame);
    if (frame.kind === "register" || frame.mayClose) this.sentRegister = true;
    this.bytes += typeof frame.data === "string" ? Buffer.byteLength(frame.data) : frame.data.length;
    if (this.#ws.bufferedAmount < 1024 * 1024) return void this.#ws.send(frame.data, { binary: frame.binary });
    await new Promise<void>((resolve) => this.#ws.send(frame.data, { binary: frame.binary }, () => resolve()));
  }

  /** Waits until every owed answer came (or the socket closed). */
  drained(): Promise<void> {
    return this.#wait(() => this.owed.size === 0 || !this.isOpen, "every owed answer");
  }

  /** Pings as an agent does and waits for the pong. */
  async ping(): Promise<void> {
    const pong = this.#until((text) => text.includes('"pong"'));
    this.#ws.send('{"type":"ping"}');
    await pong;
  }

  close(): Promise<unknown> {
    if (this.isOpen) this.#ws.close(1000);
    return this.closed;
  }

  #onMessage(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#findings.push({ frame: this.#frame(), what: `the hub sent a frame that is not JSON: ${text.slice(0, 200)}` });
      return;
    }
    for (const item of Array.isArray(value) ? value : [value]) this.#onItem(item as Record<string, unknown>);
    this.#wake(text);
  }

  #onItem(item: Record<string, unknown>): void {
    if (typeof item.method === "string" && item.id !== undefined) return this.#answerHub(item);
    if (typeof item.id !== "string" || !item.id.startsWith("f")) return;
    const owed = this.owed.get(item.id);
    if (!owed)
      return void this.#findings.push({ frame: this.#frame(), what: `an answer nobody is owed: ${JSON.stringify(item).slice(0, 300)}` });
    this.owed.delete(item.id);
    if (owed.mustFail && "result" in item)
      this.#findings.push({ frame: this.#frame(), what: `a call on another client's tab succeeded: ${String(owed.data).slice(0, 300)}` });
  }

  /** The hub's own call (agent.run's evaluate): a few fuzzed status frames, then a result, an error, or nothing. */
  #answerHub(request: Record<string, unknown>): void {
    const rng = this.#rng;
    const requestId = (request.params as { requestId?: unknown } | undefined)?.requestId;
    for (let i = rng.int(0, 3); i > 0; i--) {
      this.#ws.send(
        toJson({
          type: "status",
          requestId,
          status: rng.pick(["running", 7, null]),
          message: rng.chance(0.2) ? { deep: [[["x"]]] } : "step",
        }),
      );
    }
    const how = rng.int(0, 2);
    if (how === 0) this.#ws.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { status: "success", output: "fuzzed" } }));
    if (how === 1) this.#ws.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, error: { code: -32000, message: "fuzzed failure" } }));
  }

  #until(match: (text: string) => boolean): Promise<void> {
    let seen = false;
    return this.#wait(
      () => seen || !this.isOpen,
      "a frame",
      (text) => (seen ||= match(text)),
    );
  }

  #wait(when: () => boolean, what: string, onText?: (text: string) => void): Promise<void> {
    if (when()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const stalled = (): void => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`no ${what}: the hub sent nothing for ${STALL_MS} ms`));
      };
      const moved = (): void => {
        clearTimeout(timer);
        timer = setTimeout(stalled, STALL_MS);
      };
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const waiter: Waiter = onText ? { when, resolve: done, moved, onText } : { when, resolve: done, moved };
      this.#waiters.push(waiter);
      moved();
    });
  }

  #wake(text?: string): void {
    for (const waiter of [...this.#waiters]) {
      if (text !== undefined) waiter.moved();
      if (text !== undefined) waiter.onText?.(text);
      if (!waiter.when()) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

/** How one phase went. */
interface PhaseReport {
  findings: Finding[];
  progress: Progress;
  connections: number;
  closes: Map<string, number>;
  runs: Map<string, number>;
}

describe(`fuzzing the agent endpoint with ${FRAME_COUNT.toLocaleString("en")} frames unregistered and as many registered (real hub)`, function () {
  this.timeout(300_000);
  let hub: Hub;
  let control: TabwireClient;
  let targets: AgentFuzzTargets;
  let marker = 0;
  const crashes: string[] = [];
  const onCrash = (error: unknown): void => void crashes.push((error as Error)?.stack ?? String(error));

  before(async () => {
    process.on("unhandledRejection", onCrash);
    process.on("uncaughtExceptionMonitor", onCrash);
    // Its registers with wrong keys come from one address faster than AUTH_FAILURES_PER_MIN (tested in auth-failures.test.ts).
    hub = await startTestHub({
      HUB_TOKEN: CONTROL_TOKEN,
      AUTH_KEY: AGENT_KEY,
      DEFAULT_TIMEOUT_MS: "3000",
      AUTH_FAILURES_PER_MIN: "100000",
      AUTH_FAILURES_GLOBAL_PER_MIN: "100000",
    });
    control = await connectClient(hub, { token: CONTROL_TOKEN });
    const own = await openTab(control, "about:blank", { clientId: AGENT_CLIENT });
    const foreign = await openTab(control, "about:blank", { clientId: "fuzzother" });
    await control.call("evaluate", { target: foreign.target, expression: "window.secret = 'fuzzother-only'" });
    targets = { own: own.target, foreign: foreign.target };
  });

  after(async () => {
    process.off("unhandledRejection", onCrash);
    process.off("uncaughtExceptionMonitor", onCrash);
    await control?.close();
    await hub?.stop();
  });

  /** Checks the control client's tab: a wrong, failed or late answer is a finding. */
  const check = async (frame: number, findings: Finding[]): Promise<void> => {
    const n = ++marker;
    try {
      const { value } = await control.call("evaluate", {
        target: targets.foreign,
        expression: `window.secret + ${n}`,
        timeoutMs: CONTROL_BUDGET_MS,
      });
      if (value !== `fuzzother-only${n}`) findings.push({ frame, what: `the control call answered ${JSON.stringify(value)}` });
    } catch (error) {
      findings.push({ frame, what: `the control call failed: ${(error as Error).message}` });
    }
  };

  /** Runs one phase; fails when it stops moving (STALL_MS without a frame sent), never on its total time. */
  function runPhase(registered: boolean): Promise<PhaseReport> {
    const progress = new Progress("frames");
    return unlessStalled(fuzzPhase(registered, progress), { progress, stallMs: 2 * STALL_MS });
  }

  async function fuzzPhase(registered: boolean, progress: Progress): Promise<PhaseReport> {
    const findings: Finding[] = [];
    const report: PhaseReport = { findings, progress, connections: 0, closes: new Map(), runs: new Map() };
    const generator = new AgentFrameGenerator(SEED + (registered ? 1 : 0), targets);
    const url = `${hub.url}/agent${registered ? `?token=${AGENT_KEY}` : ""}`;
    const runs: Promise<void>[] = [];
    let sent = 0;
    while (sent < FRAME_COUNT) {
      const socket = await FuzzSocket.open(url, registered, { findings, rng: generator.rng, frameNumber: () => sent });
      report.connections++;
      while (sent < FRAME_COUNT && socket.isOpen) {
        const frame = generator.next();
        if (frame.mayClose && !generator.rng.chance(CLOSING_FRAME_RATE)) continue;
        await socket.send(frame);
        sent++;
        progress.step();
        if (sent % CONTROL_EVERY_FRAMES === 0) await check(sent, findings);
        if (registered && sent % AGENT_RUN_EVERY_FRAMES === 0) runs.push(agentRun(report));
      }
      if (socket.isOpen) {
        await socket.drained();
        await socket.ping();
        await socket.close();
        continue;
      }
      const { code, reason } = await socket.closed;
      report.closes.set(`${code}`, (report.closes.get(`${code}`) ?? 0) + 1);
      const why =
        code === 1009
          ? socket.bytes > UNREGISTERED_BYTES && !registered
          : code === 1008 && (socket.sentRegister || /AGENT_REGISTER_TIMEOUT_MS/.test(reason));
      if (!why)
        findings.push({
          frame: sent,
          what: `the hub closed a socket with ${code} ${reason} (sent ${socket.bytes} bytes, register: ${socket.sentRegister})`,
        });
    }
    await Promise.all(runs);
    await check(sent, findings);
    return report;
  }

  /** agent.run on the fuzzing agent: it must be answered, a result or an error, within its budget. */
  async function agentRun(report: PhaseReport): Promise<void> {
    let outcome: string;
    try {
      await control.call("agent.run", { target: `${AGENT_CLIENT}:fuzz`, input: "fuzz", timeoutMs: 3_000 });
      outcome = "result";
    } catch (error) {
      outcome = error instanceof TabwireError ? String(error.code) : `not answered: ${(error as Error).message}`;
      if (!(error instanceof TabwireError)) report.findings.push({ frame: -1, what: `agent.run ${outcome}` });
    }
    report.runs.set(outcome, (report.runs.get(outcome) ?? 0) + 1);
  }

  const describeReport = (report: PhaseReport): string =>
    `${report.progress.pace()}, ${report.connections} connections, closes ${JSON.stringify(Object.fromEntries(report.closes))}, agent.run ${JSON.stringify(Object.fromEntries(report.runs))}; findings: ${JSON.stringify(report.findings.slice(0, 10))}`;

  it("unregistered sockets: every request answered once, none reaches another client, closed only 1009 past 64 KiB or 1008 for a refused register", async () => {
    const report = await runPhase(false);
    console.log(`      ${describeReport(report).replace(/; findings: .*/, "")}`);
    expect(report.findings, describeReport(report)).to.deep.equal([]);
    expect(crashes).to.deep.equal([]);
    expect(report.closes.get("1009") ?? 0, describeReport(report)).to.be.above(0);
    expect(hub.services.agents.all(), "no fuzzing socket ever registered").to.deep.equal([]);
  });

  it("a registered agent: the same, the hub's agent.run calls always answered, and the tab of another client never reached", async () => {
    const report = await runPhase(true);
    console.log(`      ${describeReport(report).replace(/; findings: .*/, "")}`);
    expect(report.findings, describeReport(report)).to.deep.equal([]);
    expect(crashes).to.deep.equal([]);
    expect([...report.runs.values()].reduce((a, b) => a + b, 0)).to.equal(Math.floor(FRAME_COUNT / AGENT_RUN_EVERY_FRAMES));
    const { value } = await control.call("evaluate", { target: targets.foreign, expression: "window.secret" });
    expect(value).to.equal("fuzzother-only");
  });
});
