import { answered } from "./compare.js";
import type { HubProcess } from "./load.js";
import { cpuDuring } from "./process-cpu.js";
import { median, timeSequential } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

/** A hub process held against others, and an evaluate("1+1") on a tab of its own. */
export interface EvaluateSide {
  pid: number;
  evaluate: () => Promise<void>;
}

/** A hub's side of the comparison: a connection of its own, a blank tab, and evaluate("1+1") there; `close` ends the connection. */
export async function openEvaluateSide(hub: HubProcess): Promise<EvaluateSide & { close: () => Promise<void> }> {
  const caller = await WsCaller.open(`${hub.url}/rpc`);
  const call = (method: string, params: object): Promise<Record<string, unknown>> =>
    answered(caller.send({ jsonrpc: "2.0", method, params }));
  const { target } = (await call("tabs.open", { url: "about:blank", background: true })).result as { target: string };
  return {
    pid: hub.pid,
    evaluate: async () => void (await call("evaluate", { target, expression: "1+1" })),
    close: () => caller.close(),
  };
}

/**
 * Each hub's CPU per evaluate (µs, all its threads) in blocks of `blockCalls`, `blocks` blocks a hub, after a warm-up
 * of `warmupCalls` each (a fresh process compiles its code first). The hubs take turns block by block, and who goes
 * first turns each round, so that what the machine does meanwhile falls on all of them alike. A list per side, in
 * block order: block i of two sides ran side by side, so their ratio per block is the steadier figure.
 */
export async function alternatedEvaluateCpu(
  sides: readonly EvaluateSide[],
  options: { blocks: number; blockCalls: number; warmupCalls: number },
): Promise<number[][]> {
  const { blocks, blockCalls, warmupCalls } = options;
  for (const side of sides) await timeSequential(warmupCalls, side.evaluate);
  const cpu = sides.map((): number[] => []);
  for (let block = 0; block < blocks; block++) {
    for (let turn = 0; turn < sides.length; turn++) {
      const index = (block + turn) % sides.length;
      const side = sides[index] as EvaluateSide;
      const nanos = await cpuDuring(side.pid, () => timeSequential(blockCalls, side.evaluate));
      cpu[index]?.push(nanos / blockCalls / 1000);
    }
  }
  return cpu;
}

/** The median of the per-block ratios of `hub` to `alternative` (same blocks). */
export function blockRatio(hub: readonly number[], alternative: readonly number[]): number {
  return median(hub.map((value, i) => value / (alternative[i] ?? value)));
}
