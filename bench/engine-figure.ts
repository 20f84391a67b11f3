import { answered, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { startHubProcess } from "./load.js";
import { cpuDuring } from "./process-cpu.js";
import { packageShare, type CpuProfile } from "./profile-share.js";
import { timeSequential } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const ENGINE = "json-rpc-2.0";
// As the hot path's figures: a fresh hub compiles its own code for its first few thousand calls.
const WARMUP_CALLS = 3_000;
const MEASURED_CALLS = 5_000;
// A sample every 100 µs: an evaluate costs the hub about 150 µs of CPU, so each call is seen about once or twice.
const SAMPLING_INTERVAL_US = 100;

/**
 * What the JSON-RPC engine costs the hub per evaluate("1+1"): the share of the hub's busy CPU samples spent in
 * json-rpc-2.0's code (and the native work it calls), profiled by V8 over warm calls on a hub of its own (same
 * Chromium), times the hub's CPU per evaluate measured without the profiler. A share is what an A/B of two builds
 * cannot give on these shared machines: two runs of one build there differ by up to 10%.
 */
export async function engineFigure(context: BenchContext): Promise<Figure> {
  const hub = await startHubProcess({ inspect: true, env: { CDP_URL: context.cdpUrl } });
  const caller = await WsCaller.open(`${hub.url}/rpc`);
  const inspector = await WsCaller.open(hub.inspectorUrl ?? "");
  try {
    const opened = await answered(caller.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: "about:blank", background: true } }));
    const target = (opened.result as { target: string }).target;
    const evaluate = async (): Promise<void> => {
      const answer = await answered(caller.send({ jsonrpc: "2.0", method: "evaluate", params: { target, expression: "1+1" } }));
      if ((answer.result as { value?: unknown }).value !== 2) throw new Error(`evaluate 1+1 gave ${JSON.stringify(answer.result)}`);
    };
    await timeSequential(WARMUP_CALLS, evaluate);
    const perCallUs = (await cpuDuring(hub.pid, () => timeSequential(MEASURED_CALLS, evaluate))) / MEASURED_CALLS / 1000;
    await answered(inspector.send({ method: "Profiler.enable" }));
    await answered(inspector.send({ method: "Profiler.setSamplingInterval", params: { interval: SAMPLING_INTERVAL_US } }));
    await answered(inspector.send({ method: "Profiler.start" }));
    await timeSequential(MEASURED_CALLS, evaluate);
    const stopped = await answered(inspector.send({ method: "Profiler.stop" }));
    const { share, busySamples } = packageShare((stopped.result as { profile: CpuProfile }).profile, ENGINE);
    return {
      name: `CPU per evaluate in ${ENGINE}, the JSON-RPC engine (share of ${busySamples} busy samples of the hub's V8 profile, ${MEASURED_CALLS} warm calls) / the hub's CPU per evaluate`,
      label: `${ENGINE}'s share of the hub's CPU per evaluate`,
      unit: "µs",
      goal: "<= 0.03",
      hub: share * perCallUs,
      alternative: perCallUs,
      ratio: share,
    };
  } finally {
    await inspector.close();
    await caller.close();
    await hub.stop();
  }
}
