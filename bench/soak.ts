// The one-hour soak: a hub child process under a steady mix of calls, tab cycles, console streams, agent tasks and
// short-lived connections, and the churn of clients that come and go (soak-churn.ts: MCP sessions ended and dropped,
// /cdp with Puppeteer and Playwright, live views, routes, per-client contexts, abandoned openers), sampled as it goes
// with Chrome's processes and PSS beside the hub's memory; its table goes in bench/README.md. Run it without npm as
//   npm run build && node dist/bench/soak.js --minutes 60
// (or `npm run soak`, 60 minutes by default, or SOAK_MINUTES=N). It exits 1 when a call went unanswered, anything
// failed or the hub printed a warning. test/integration/soak.test.ts runs it for 24 s.
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import os from "node:os";
import { CHURN_HUB_ENV, churnLoops } from "./soak-churn.js";
import { Tally } from "./soak-tally.js";
import { pathToFileURL } from "node:url";
import { TestAgent } from "../test/fixtures/wire-agent.js";
import { startHubProcess } from "./load.js";
import { HubProbe, type HubState } from "./soak-probe.js";
import { percentile } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const CONSOLE_WAIT_MS = 10_000;
// What a hub with no tokens always says at start-up, and the hint Node adds after its first warning.
const EXPECTED_STDERR = [
  /no HUB_TOKEN or HUB_TOKENS set/,
  /^\(Use `node --trace-warnings/,
  /^Debugger (listening on|attached|ending on)/,
  /^For help, see: https:\/\/nodejs.org\/en\/docs\/inspector/,
  /^\s*$/,
];
const PAGE = `data:text/html,${encodeURIComponent("<title>soak</title><h1>Soak</h1><p>A page the soak drives.</p><button>Go</button><input value=x>")}`;

/** One row of the soak: the hub's state at the end of an interval and the calls answered during it. */
export interface SoakSample extends HubState {
  elapsedS: number;
  calls: number;
  callsPerSec: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
}

/** What a soak run did and saw. */
export interface SoakReport {
  /** Before the load, and after it stopped and drained. */
  rest: HubState;
  end: HubState;
  samples: SoakSample[];
  /** Calls sent, and answered (with a result or an error object). */
  calls: number;
  answered: number;
  /** Failures by kind: error answers, unanswered calls, lost console messages, failed agent handshakes. */
  errors: Record<string, number>;
  /** Completed cycles of each workload. */
  cycles: Record<string, number>;
  /** How long the load ran. */
  loadS: number;
  p50Ms: number;
  p99Ms: number;
  /** The hub's stderr lines other than its start-up warning, each once, with how many times it came. */
  hubWarnings: string[];
}

/** How long to soak and how often to sample. */
export interface SoakOptions {
  durationMs: number;
  sampleEveryMs: number;
  /** The load goes on past `durationMs` until this many calls were sent: a slower machine takes longer, not less work. */
  minCalls?: number;
  /** The run fails once no call was answered for this long (a stalled hub), checked at each sample. */
  stallMs?: number;
  /** Whether the churn of clients that come and go runs too (default true). */
  churn?: boolean;
  /** Told each sample as it is taken. */
  onSample?: (sample: SoakSample) => void;
}

/** Drives a hub with a mix of work for `durationMs`, sampling it every `sampleEveryMs`; starts and stops its own hub. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "tabwire-soak-data-"));
  const hub = await startHubProcess({ inspect: true, env: { ...CHURN_HUB_ENV, DATA_DIR: dataDir } });
  let probe: HubProbe | undefined;
  try {
    probe = await HubProbe.open(hub, dataDir);
    const rest = await probe.state();
    const tally = new Tally();
    const load = { started: Date.now(), stopped: false };
    const running = (): boolean => !load.stopped;
    const loops = [
      ...[1, 2].map((n) => orchestratorLoop(hub.url, tally, { running, n })),
      ...[1, 2].map(() => tabLoop(hub.url, tally, running)),
      agentLoop(hub.url, tally, running),
      connectionLoop(hub.url, tally, running),
      ...(options.churn === false ? [] : churnLoops(hub.url, tally, running)),
    ];
    const samples = await sampleUntil(probe, tally, { ...options, load }).finally(() => (load.stopped = true));
    const loadS = (Date.now() - load.started) / 1000;
    await Promise.all(loops);
    const end = await probe.drained(rest);
    return {
      rest,
      end,
      samples,
      calls: tally.calls,
      answered: tally.answered,
      errors: Object.fromEntries(tally.errors),
      cycles: Object.fromEntries(tally.cycles),
      loadS,
      p50Ms: percentile(tally.latencies, 50),
      p99Ms: percentile(tally.latencies, 99),
      hubWarnings: unexpected(hub.stderr),
    };
  } finally {
    await probe?.close();
    await hub.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The lines of `stderr` other than the expected ones, each once, prefixed with their count. */
function unexpected(stderr: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of stderr) {
    if (EXPECTED_STDERR.some((pattern) => pattern.test(line))) continue;
    // Log lines start with a timestamp, Node's warnings with the pid: neither makes two lines differ.
    const key = line
      .replace(/^\S+Z /, "")
      .replace(/^\(node:\d+\) /, "")
      .slice(0, 300);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([line, count]) => `${count} x ${line}`);
}

/**
 * Samples the hub every `sampleEveryMs` under load until `durationMs` passed and `minCalls` were sent; throws once
 * no call was answered for `stallMs`.
 */
async function sampleUntil(probe: HubProbe, tally: Tally, options: SoakOptions & { load: { started: number } }): Promise<SoakSample[]> {
  const samples: SoakSample[] = [];
  const { started } = options.load;
  const deadline = started + options.durationMs;
  const done = (): boolean => Date.now() >= deadline && tally.calls >= (options.minCalls ?? 0);
  let last = started;
  let answered = { count: tally.answered, at: started };
  while (!done()) {
    const untilDeadline = deadline - Date.now();
    await new Promise((resolve) =>
      setTimeout(resolve, untilDeadline > 0 ? Math.min(options.sampleEveryMs, untilDeadline) : options.sampleEveryMs),
    );
    const now = Date.now();
    if (tally.answered !== answered.count) answered = { count: tally.answered, at: now };
    if (options.stallMs !== undefined && now - answered.at >= options.stallMs)
      throw new Error(`soak: no call answered for ${options.stallMs} ms, after ${tally.answered} of ${tally.calls} calls`);
    const calls = tally.interval.length;
    const sample: SoakSample = {
      elapsedS: Math.round((now - started) / 1000),
      ...(await probe.state()),
      calls,
      callsPerSec: calls / ((now - last) / 1000),
      errors: tally.intervalErrors,
      p50Ms: percentile(tally.interval, 50),
      p99Ms: percentile(tally.interval, 99),
    };
    tally.interval = [];
    tally.intervalErrors = 0;
    last = now;
    samples.push(sample);
    options.onSample?.(sample);
  }
  return samples;
}

/** One long-lived connection and tab: evaluate, screenshot, snapshot, and a console subscription that sees a log. */
async function orchestratorLoop(hubUrl: string, tally: Tally, loop: { running: () => boolean; n: number }): Promise<void> {
  const { running, n } = loop;
  const caller = await WsCaller.open(`${hubUrl}/rpc`);
  const opened = await tally.call(caller, "tabs.open", { url: PAGE, clientId: `soak-${n}` });
  const target = opened?.target as string | undefined;
  try {
    for (let i = 0; target && running(); i++) {
      await tally.call(caller, "evaluate", { target, expression: "(a) => document.title + a", args: [i] });
      await tally.call(caller, "screenshot", { target });
      await tally.call(caller, "snapshot", { target });
      await consoleRoundTrip(caller, tally, { target, text: `soak-${n}-${i}` });
      tally.cycle("orchestrator");
    }
  } finally {
    if (target) await tally.call(caller, "tabs.close", { target });
    await caller.close();
  }
}

/** console.subscribe, a console.log in the page, its console.message, console.unsubscribe. */
async function consoleRoundTrip(caller: WsCaller, tally: Tally, log: { target: string; text: string }): Promise<void> {
  const { target, text } = log;
  let stop = (): void => {};
  const seen = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), CONSOLE_WAIT_MS);
    const dispose = caller.onEvent((message) => {
      const params = message.params as { text?: unknown } | undefined;
      if (message.method === "console.message" && params?.text === text) resolve(true);
    });
    stop = () => {
      clearTimeout(timer);
      dispose();
    };
  });
  const subscribed = await tally.call(caller, "console.subscribe", { target });
  if (!subscribed) return stop();
  await tally.call(caller, "evaluate", { target, expression: `console.log(${JSON.stringify(text)})` });
  if (!(await seen)) tally.fail("console.message: not delivered within 10 s");
  stop();
  await tally.call(caller, "console.unsubscribe", { subscriptionId: subscribed.subscriptionId });
}

/** Tabs opened, used once and closed, on one connection. */
async function tabLoop(hubUrl: string, tally: Tally, running: () => boolean): Promise<void> {
  const caller = await WsCaller.open(`${hubUrl}/rpc`);
  try {
    while (running()) {
      const opened = await tally.call(caller, "tabs.open", { url: PAGE });
      if (!opened) continue;
      await tally.call(caller, "evaluate", { target: opened.target, expression: "document.querySelectorAll('*').length" });
      await tally.call(caller, "tabs.close", { target: opened.target });
      tally.cycle("tabs");
    }
  } finally {
    await caller.close();
  }
}

/** An agent connects, registers, says ready, runs one task for an orchestrator, and disconnects. */
async function agentLoop(hubUrl: string, tally: Tally, running: () => boolean): Promise<void> {
  const caller = await WsCaller.open(`${hubUrl}/rpc`);
  try {
    for (let i = 0; running(); i++) {
      const clientId = `soak-agent-${i}:tab`;
      let agent: TestAgent | undefined;
      try {
        agent = await TestAgent.connect({ url: `${hubUrl}/agent`, clientId });
        agent.onRequest("evaluate", () => ({ status: "success", output: "done", executionTime: 1, toolCalls: [], metadata: {} }));
        if ((await agent.registration()).status !== "accepted") throw new Error("registration rejected");
        agent.ready();
        // The hub reads one socket's frames in order: once this call is answered, it has seen ready.
        await agent.call("ping");
      } catch (error) {
        tally.fail(`agent handshake: ${(error as Error).message.slice(0, 80)}`);
        agent?.terminate();
        continue;
      }
      const result = await tally.call(caller, "agent.run", { target: clientId, input: `task ${i}` });
      if (result && result.output !== "done") tally.fail("agent.run: wrong result");
      await agent.close();
      tally.cycle("agents");
    }
  } finally {
    await caller.close();
  }
}

/** Short-lived orchestrator connections: connect, ping, close. */
async function connectionLoop(hubUrl: string, tally: Tally, running: () => boolean): Promise<void> {
  while (running()) {
    const caller = await WsCaller.open(`${hubUrl}/rpc`);
    await tally.call(caller, "ping");
    await caller.close();
    tally.cycle("connections");
  }
}

/** The summary table of a run, as Markdown. */
export function soakTable(report: SoakReport): string {
  // The load columns (calls/s, errors, p50, p99) are empty at rest and drained.
  const row = (label: string, s: HubState, load: string[] = ["", "", "", ""]): string =>
    `| ${label} | ${s.rssMb.toFixed(1)} | ${s.heapMb.toFixed(1)} | ${s.fds} | ${s.tabs} | ${s.connections} | ${s.cdpSessions} | ${s.chromeProcesses} | ${s.chromePssMb.toFixed(0)} | ${s.downloadFolders} | ${load.join(" | ")} |`;
  const lines = [
    "| at | hub RSS MB | heap after GC MB | fds | tabs | connections | CDP sessions | Chrome processes | Chrome PSS MB | download folders | calls/s | errors | p50 ms | p99 ms |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    row("rest", report.rest),
    ...report.samples.map((s) =>
      row(`${s.elapsedS} s`, s, [s.callsPerSec.toFixed(0), String(s.errors), s.p50Ms.toFixed(1), s.p99Ms.toFixed(1)]),
    ),
    row("drained", report.end),
  ];
  const errors =
    Object.entries(report.errors)
      .map(([kind, count]) => `${count} x ${kind}`)
      .join("; ") || "none";
  return [
    ...lines,
    "",
    `calls ${report.calls} in ${report.loadS.toFixed(1)} s (${(report.calls / report.loadS).toFixed(1)} calls/s), answered ${report.answered}, p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms; cycles ${JSON.stringify(report.cycles)}`,
    `errors: ${errors}`,
    `hub stderr: ${report.hubWarnings.join("; ") || "nothing unexpected"}`,
  ].join("\n");
}

async function main(): Promise<void> {
  const flag = process.argv.indexOf("--minutes");
  const minutes = flag > 0 ? Number(process.argv[flag + 1]) : Number(process.env.SOAK_MINUTES ?? 60);
  if (!(minutes > 0)) throw new Error("usage: node dist/bench/soak.js [--minutes N] (or SOAK_MINUTES=N)");
  const sampleEveryMs = Math.min(60_000, (minutes * 60_000) / 4);
  process.stdout.write(
    `tabwire soak: ${minutes} min, a sample every ${sampleEveryMs / 1000} s (${os.cpus().length} cores, Node ${process.version})\n`,
  );
  const report = await runSoak({
    durationMs: minutes * 60_000,
    sampleEveryMs,
    onSample: (s) =>
      process.stdout.write(
        `${s.elapsedS} s: RSS ${s.rssMb.toFixed(1)} MB, heap ${s.heapMb.toFixed(1)} MB, ${s.fds} fds, ${s.tabs} tabs, Chrome ${s.chromeProcesses} processes ${s.chromePssMb.toFixed(0)} MB PSS, ${s.downloadFolders} download folders, ${s.callsPerSec.toFixed(0)} calls/s, ${s.errors} errors, p50 ${s.p50Ms.toFixed(1)} ms, p99 ${s.p99Ms.toFixed(1)} ms\n`,
      ),
  });
  process.stdout.write(`\n${soakTable(report)}\n`);
  if (report.answered !== report.calls || Object.keys(report.errors).length > 0 || report.hubWarnings.length > 0) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
