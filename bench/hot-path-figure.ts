import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { answered, compareThroughput, evaluateRaw, evaluateViaHub, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { hubListening } from "./hub-listening.js";
import { cpuDuring, cpuNanos } from "./process-cpu.js";
import { median, timeSequential } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const RELAY = fileURLToPath(new URL("./bare-relay.js", import.meta.url));
const IN_FLIGHT = 16;
// Short blocks, many rounds, the order of the paths rotated every round: drift and warm-up hit every path alike.
const BLOCK_CALLS = 100;
const BLOCK_ROUNDS = 40;
const CPU_CALLS = 500;
// Calls each path makes before it is measured: a fresh hub spends more CPU compiling its own code (V8's optimizing
// compiler runs on threads of the process) than answering, for its first few thousand calls; the relay has little code.
const WARMUP_CALLS = 3_000;

type Path = "raw" | "relay" | "hub";

/** Per path: the median latency of each block (ms), and the CPU its process spent over all blocks (ns). */
interface Blocks {
  latency: Record<Path, number[]>;
  cpu: Record<"relay" | "hub", number>;
}

/**
 * The hot path against its floor: the hub held against a bare relay process (bench/bare-relay.ts: a WebSocket to one
 * held CDP session with the CDP params the contract asks of evaluate, nothing else), called by the same client, in
 * rotated blocks; the CPU each process spends per call; throughput at 16 in flight; and the relay against raw CDP,
 * which says what any hub in a process of its own costs on this machine.
 */
export async function hotPathFigures(context: BenchContext, hubPid: number): Promise<Figure[]> {
  const child = spawn(process.execPath, [RELAY], {
    env: { ...process.env, CDP_URL: context.cdpUrl, TAB_ID: context.tabId },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const relay = await WsCaller.open(`${await hubListening(child, 10_000)}/rpc`);
    const via: Record<Path, () => Promise<unknown>> = {
      raw: () => evaluateRaw(context),
      relay: async () => {
        const answer = await answered(relay.send({ jsonrpc: "2.0", method: "evaluate", params: { expression: "1+1" } }));
        if ((answer.result as { value?: unknown }).value !== 2)
          throw new Error(`the bare relay evaluated 1+1 to ${JSON.stringify(answer.result)}`);
      },
      hub: () => evaluateViaHub(context),
    };
    const blocks = await rotatedBlocks(via, { hub: hubPid, relay: child.pid ?? 0 });
    const { rounds, calls } = context;
    const throughput = { warmupCalls: 100, calls: calls * 2, rounds };
    const hubVsRelay = await compareThroughput({ viaHub: via.hub, viaAlternative: via.relay, ...throughput }, IN_FLIGHT);
    const relayVsRaw = await compareThroughput({ viaHub: via.relay, viaAlternative: via.raw, ...throughput }, IN_FLIGHT);
    await relay.close();
    return [...blockFigures(blocks), ...throughputFigures(hubVsRelay, relayVsRaw), ...(await hubCpuFigures(context, hubPid))];
  } finally {
    child.kill();
  }
}

async function rotatedBlocks(via: Record<Path, () => Promise<unknown>>, pids: Record<"relay" | "hub", number>): Promise<Blocks> {
  const paths: Path[] = ["raw", "relay", "hub"];
  for (const path of paths) await timeSequential(WARMUP_CALLS, via[path]);
  const blocks: Blocks = { latency: { raw: [], relay: [], hub: [] }, cpu: { relay: 0, hub: 0 } };
  for (let round = 0; round < BLOCK_ROUNDS; round++) {
    for (let i = 0; i < paths.length; i++) {
      const path = paths[(round + i) % paths.length] as Path;
      const pid = path === "raw" ? null : pids[path];
      const before = pid === null ? 0 : cpuNanos(pid);
      blocks.latency[path].push(median(await timeSequential(BLOCK_CALLS, via[path])));
      if (pid !== null && path !== "raw") blocks.cpu[path] += cpuNanos(pid) - before;
    }
  }
  return blocks;
}

function blockFigures(blocks: Blocks): Figure[] {
  const ratioOf = (a: number[], b: number[]): number => median(a.map((value, i) => value / (b[i] ?? value)));
  const { latency, cpu } = blocks;
  const perCallUs = (ns: number): number => ns / (BLOCK_ROUNDS * BLOCK_CALLS) / 1000;
  return [
    {
      name: `evaluate("1+1") round trip: hub / a bare relay process (same client, ${BLOCK_ROUNDS} rotated blocks of ${BLOCK_CALLS})`,
      label: "evaluate 1+1 vs a bare relay process",
      unit: "ms",
      goal: "<= 1.05",
      hub: median(latency.hub),
      alternative: median(latency.relay),
      ratio: ratioOf(latency.hub, latency.relay),
    },
    {
      name: "CPU per evaluate: the hub's process / the bare relay's process (all threads, same calls)",
      label: "CPU per evaluate vs a bare relay",
      unit: "µs",
      goal: "<= 1.15",
      hub: perCallUs(cpu.hub),
      alternative: perCallUs(cpu.relay),
      ratio: cpu.hub / cpu.relay,
    },
    {
      name: 'floor, not tabwire: evaluate("1+1") round trip through the bare relay / raw CDP (the relay in the tabwire column)',
      label: "floor: bare relay vs raw CDP, round trip",
      unit: "ms",
      goal: "(report)",
      hub: median(latency.relay),
      alternative: median(latency.raw),
      ratio: ratioOf(latency.relay, latency.raw),
    },
  ];
}

function throughputFigures(hubVsRelay: Omit<Figure, "name" | "label" | "unit" | "goal">, relayVsRaw: typeof hubVsRelay): Figure[] {
  return [
    {
      name: `evaluate throughput, ${IN_FLIGHT} in flight on one tab: hub / the bare relay`,
      label: `evaluate, ${IN_FLIGHT} in flight, vs a bare relay`,
      unit: "calls/s",
      goal: ">= 0.9",
      ...hubVsRelay,
    },
    {
      name: `floor, not tabwire: evaluate throughput, ${IN_FLIGHT} in flight, through the bare relay / raw CDP (the relay in the tabwire column)`,
      label: `floor: bare relay vs raw CDP, ${IN_FLIGHT} in flight`,
      unit: "calls/s",
      goal: "(report)",
      ...relayVsRaw,
    },
  ];
}

/** The hub's CPU per call of callOn on a snapshot ref and of snapshot, on a small page of its own. */
async function hubCpuFigures(context: BenchContext, hubPid: number): Promise<Figure[]> {
  const page = "data:text/html,<title>cpu</title><main><h1>Form</h1><label>Name <input></label><button>Send</button></main>";
  const opened = await answered(context.hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: page, background: true } }));
  const target = (opened.result as { target: string }).target;
  try {
    const snapshot = () => answered(context.hub.send({ jsonrpc: "2.0", method: "snapshot", params: { target } }));
    const { text } = (await snapshot()).result as { text: string };
    const ref = /button "Send" \[ref=(e\d+)\]/.exec(text)?.[1];
    if (!ref) throw new Error(`no ref for the button in ${text}`);
    const callOn = () =>
      answered(context.hub.send({ jsonrpc: "2.0", method: "callOn", params: { target, ref, functionDeclaration: "(el) => el.tagName" } }));
    const perCall = async (call: () => Promise<unknown>): Promise<number> => {
      await timeSequential(100, call);
      return (await cpuDuring(hubPid, () => timeSequential(CPU_CALLS, call))) / CPU_CALLS / 1000;
    };
    const report = (what: string, us: number): Figure => ({
      name: `CPU per call of the hub's process: ${what}`,
      label: `hub CPU per ${what}`,
      unit: "µs",
      goal: "(report)",
      hub: us,
      alternative: Number.NaN,
      ratio: Number.NaN,
    });
    return [report("callOn on a snapshot ref", await perCall(callOn)), report("snapshot of a small form", await perCall(snapshot))];
  } finally {
    await context.hub.send({ jsonrpc: "2.0", method: "tabs.close", params: { target } });
  }
}
