import { readdirSync, readFileSync } from "node:fs";
import { TestAgent } from "../test/fixtures/wire-agent.js";
import type { Figure } from "./figure.js";
import { liveHeapBytes } from "./live-heap.js";
import { percentile } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

/** One measured load figure: what, how much, in what unit. */
export interface LoadFigure {
  name: string;
  value: number;
  unit: string;
}

/** How many orchestrator connections, and how many idle agents, the load opens: BENCH_LOAD_CONNECTIONS, 1,000 by default. */
export const LOAD_CONNECTIONS = loadConnections(process.env.BENCH_LOAD_CONNECTIONS);
const CONNECTIONS = LOAD_CONNECTIONS;
const CALLS_PER_CONNECTION = 5;
const IDLE_AGENTS = LOAD_CONNECTIONS;
// Sockets are opened this many at a time: the hub listens with Node's default backlog (511), and a burst past it
// makes the kernel drop SYNs that are retried a second later, which would time TCP's retry, not the hub.
const OPEN_BATCH = 100;
const READY_TIMEOUT_MS = 30_000;
const WARMUP_CONNECTIONS = 50;
// RSS is read a few times, a little apart, and the median taken: one read can land mid-GC.
const RSS_READS = 5;
const RSS_READ_GAP_MS = 200;

// Fewer connections make a quicker smoke run; the goals of the issue are stated for 1,000.
function loadConnections(setting: string | undefined): number {
  if (setting === undefined || setting === "") return 1_000;
  const count = Number(setting);
  if (!Number.isInteger(count) || count < 1) throw new Error(`BENCH_LOAD_CONNECTIONS must be a positive integer, not "${setting}"`);
  return count;
}

/** A process's resident memory in KB, from /proc (Linux). */
export function rssKb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? NaN);
}

/** How many file descriptors a process has open, from /proc (Linux). */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The soft limit on open files of a process (its `ulimit -n`), from /proc (Linux). */
export function openFileLimit(pid: number | "self"): number {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"));
  return match?.[1] === "unlimited" ? Infinity : Number(match?.[1] ?? NaN);
}

/** The hub's memory at one moment: RSS (KB) and, with its inspector, the live heap after a forced GC (bytes, else NaN). */
interface Footprint {
  rssKb: number;
  liveHeapBytes: number;
}

/** Reads a hub's footprint; with the hub's inspector each read comes after a full GC, so garbage is not counted. */
type FootprintReader = () => Promise<Footprint>;

/**
 * Load on a running hub: LOAD_CONNECTIONS orchestrator connections open at once, each making 5 calls (every call must
 * be answered), and as many idle agents registered on the agent endpoint, with the hub's memory per connection.
 * Given the hub's inspector (`--inspect`), memory is read after a forced GC: otherwise the young generation V8
 * grows while a thousand connections open counts as theirs (about 19 KB per agent instead of 8.5).
 */
export async function loadFigures(hubUrl: string, hubPid: number, inspectorUrl: string | null = null): Promise<LoadFigure[]> {
  checkFileLimits(hubPid);
  const inspector = inspectorUrl ? await WsCaller.open(inspectorUrl) : null;
  try {
    const footprint: FootprintReader = async () => {
      const live = inspector ? await liveHeapBytes(inspector) : Number.NaN;
      return { rssKb: await steadyRssKb(hubPid), liveHeapBytes: live };
    };
    await warmUp(hubUrl);
    const rest = await footprint();
    const agents = await idleAgentFigures(hubUrl, footprint, rest);
    const orchestrators = await orchestratorFigures(hubUrl, footprint);
    return [{ name: "hub RSS at rest", value: rest.rssKb / 1024, unit: "MB" }, ...agents, ...orchestrators];
  } finally {
    await inspector?.close();
  }
}

/** Memory per connection from two footprints: RSS always, the live heap when it was read. */
function perConnection(what: string, before: Footprint, after: Footprint & { count: number }): LoadFigure[] {
  const { count } = after;
  const rss = {
    name: `hub memory per ${what} (RSS with them minus at rest, / count)`,
    value: (after.rssKb - before.rssKb) / count,
    unit: "KB",
  };
  if (Number.isNaN(after.liveHeapBytes)) return [rss];
  return [
    rss,
    { name: `hub live heap per ${what} (after GC)`, value: (after.liveHeapBytes - before.liveHeapBytes) / count / 1024, unit: "KB" },
  ];
}

// The goal for the memory an idle agent connection costs the hub.
const PER_IDLE_AGENT_GOAL_KB = 10;

/**
 * The load figures as rows of the bench table. They have no alternative to run against (alternative NaN, printed
 * "-"): the memory per idle agent is checked against its absolute goal, the others are reported.
 */
export function asTableRows(load: readonly LoadFigure[]): Figure[] {
  return load.map((figure) => {
    const perAgent = figure.name.startsWith("hub memory per idle agent");
    return {
      name: figure.name,
      label: figure.name,
      hub: figure.value,
      alternative: Number.NaN,
      unit: figure.unit,
      ratio: perAgent ? figure.value : Number.NaN,
      goal: perAgent ? `<= ${PER_IDLE_AGENT_GOAL_KB}` : "(report)",
    };
  });
}

/** A few of each kind of connection first, so that "at rest" already counts the code and pools they bring in. */
async function warmUp(hubUrl: string): Promise<void> {
  const agents = await Promise.all(Array.from({ length: WARMUP_CONNECTIONS }, (_, i) => registerAgent(hubUrl, `load-warmup-${i}:tab`)));
  await Promise.all(agents.map((agent) => agent.close()));
  const callers = await Promise.all(Array.from({ length: WARMUP_CONNECTIONS }, () => WsCaller.open(`${hubUrl}/rpc`)));
  await callFromAll(callers);
  await Promise.all(callers.map((caller) => caller.close()));
}

/** Both ends hold one fd per connection, the hub also its logs, Chrome and listening sockets. */
function checkFileLimits(hubPid: number): void {
  const needed = Math.max(CONNECTIONS, IDLE_AGENTS) + 100;
  const limits = { bench: openFileLimit("self"), hub: openFileLimit(hubPid) };
  process.stdout.write(`open file limits (ulimit -n): bench ${limits.bench}, hub ${limits.hub}; ${needed} needed by each\n`);
  for (const [who, limit] of Object.entries(limits)) {
    if (limit < needed) throw new Error(`the ${who} may open only ${limit} files; raise it with "ulimit -n ${needed * 2}" before running`);
  }
}

async function idleAgentFigures(hubUrl: string, footprint: FootprintReader, rest: Footprint): Promise<LoadFigure[]> {
  const watcher = await WsCaller.open(`${hubUrl}/rpc`);
  const agents: TestAgent[] = [];
  try {
    let ready = 0;
    let onAllReady = (): void => {};
    const allReady = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${ready} of ${IDLE_AGENTS} agents ready within ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      onAllReady = () => (clearTimeout(timer), resolve());
    });
    watcher.onEvent((message) => {
      const target = (message.params as { target?: string } | undefined)?.target ?? "";
      if (message.method === "agent.ready" && target.startsWith("load-agent-") && ++ready === IDLE_AGENTS) onAllReady();
    });
    await watcher.send({ jsonrpc: "2.0", method: "events.subscribe", params: { topics: ["agents"] } });
    const started = performance.now();
    for (let i = 0; i < IDLE_AGENTS; i += OPEN_BATCH) {
      const batch = Array.from({ length: Math.min(OPEN_BATCH, IDLE_AGENTS - i) }, (_, k) =>
        registerAgent(hubUrl, `load-agent-${i + k}:tab`),
      );
      agents.push(...(await Promise.all(batch)));
    }
    await allReady;
    const registeredMs = performance.now() - started;
    const withAgents = await footprint();
    return [
      { name: `${IDLE_AGENTS} agents connected, registered and ready (${OPEN_BATCH} at a time)`, value: registeredMs / 1000, unit: "s" },
      { name: `hub RSS with ${IDLE_AGENTS} idle agents`, value: withAgents.rssKb / 1024, unit: "MB" },
      ...perConnection("idle agent", rest, { ...withAgents, count: IDLE_AGENTS }),
    ];
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
    await watcher.close();
  }
}

async function registerAgent(hubUrl: string, clientId: string): Promise<TestAgent> {
  const agent = await TestAgent.connect({ url: `${hubUrl}/agent`, clientId });
  const ack = await agent.registration();
  if (ack.status !== "accepted") throw new Error(`agent ${clientId} was not accepted: ${JSON.stringify(ack)}`);
  agent.ready();
  return agent;
}

async function orchestratorFigures(hubUrl: string, footprint: FootprintReader): Promise<LoadFigure[]> {
  const before = await footprint();
  const callers: WsCaller[] = [];
  try {
    const opening = performance.now();
    for (let i = 0; i < CONNECTIONS; i += OPEN_BATCH) {
      callers.push(
        ...(await Promise.all(Array.from({ length: Math.min(OPEN_BATCH, CONNECTIONS - i) }, () => WsCaller.open(`${hubUrl}/rpc`)))),
      );
    }
    const openMs = performance.now() - opening;
    const withConnections = await footprint();
    const calling = performance.now();
    const { latencies, ok, failed } = await callFromAll(callers);
    const callMs = performance.now() - calling;
    const calls = CONNECTIONS * CALLS_PER_CONNECTION;
    return [
      { name: `${CONNECTIONS} orchestrator connections opened (${OPEN_BATCH} at a time)`, value: openMs / 1000, unit: "s" },
      ...perConnection("idle orchestrator connection", before, { ...withConnections, count: CONNECTIONS }),
      {
        name: `calls answered with a result, ${CONNECTIONS} connections x ${CALLS_PER_CONNECTION} (ping, tabs.list) at once`,
        value: ok,
        unit: `of ${calls}`,
      },
      { name: "those calls answered with an error or not at all (within 30 s)", value: failed, unit: `of ${calls}` },
      { name: "those calls: p50 latency", value: percentile(latencies, 50), unit: "ms" },
      { name: "those calls: p99 latency", value: percentile(latencies, 99), unit: "ms" },
      { name: "those calls: throughput", value: calls / (callMs / 1000), unit: "calls/s" },
    ];
  } finally {
    await Promise.all(callers.map((caller) => caller.close()));
  }
}

/** Every caller makes its calls one after the other, all callers at once; latencies of the answered ones. */
async function callFromAll(callers: readonly WsCaller[]): Promise<{ latencies: number[]; ok: number; failed: number }> {
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  await Promise.all(
    callers.map(async (caller) => {
      for (let i = 0; i < CALLS_PER_CONNECTION; i++) {
        const method = i % 2 === 0 ? "ping" : "tabs.list";
        const started = performance.now();
        const answer = await caller.send({ jsonrpc: "2.0", method, params: {} }).catch(() => null);
        if (answer !== null) latencies.push(performance.now() - started);
        if (answer?.result === undefined) failed++;
        else ok++;
      }
    }),
  );
  return { latencies, ok, failed };
}

async function steadyRssKb(pid: number): Promise<number> {
  const reads: number[] = [];
  for (let i = 0; i < RSS_READS; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, RSS_READ_GAP_MS));
    reads.push(rssKb(pid));
  }
  return percentile(reads, 50);
}
