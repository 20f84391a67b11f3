import { median, timeSequential } from "./stats.js";
import type { WsCaller } from "./ws-caller.js";

/** What every figure of the bench works with: the hub and a raw CDP socket on the same Chromium, one tab, the counts. */
export interface BenchContext {
  hub: WsCaller;
  raw: WsCaller;
  /** The tab, as the hub names it. */
  target: string;
  /** A flattened session of the raw socket on the same tab. */
  sessionId: string;
  rounds: number;
  calls: number;
}

/** Two ways of doing one thing, timed call by call. */
export interface Contenders {
  viaHub: () => Promise<unknown>;
  viaRaw: () => Promise<unknown>;
  warmupCalls: number;
  calls: number;
  rounds: number;
}

/** Median latency of each, rounds interleaved so drift hits both, and the median of the per-round ratios hub / raw. */
export async function compareLatency(contenders: Contenders): Promise<{ hub: number; alternative: number; ratio: number }> {
  const { viaHub, viaRaw, warmupCalls, calls, rounds } = contenders;
  await timeSequential(warmupCalls, viaHub);
  await timeSequential(warmupCalls, viaRaw);
  const hubMedians: number[] = [];
  const rawMedians: number[] = [];
  for (let round = 0; round < rounds; round++) {
    hubMedians.push(median(await timeSequential(calls, viaHub)));
    rawMedians.push(median(await timeSequential(calls, viaRaw)));
  }
  const ratios = hubMedians.map((h, i) => h / (rawMedians[i] ?? h));
  return { hub: median(hubMedians), alternative: median(rawMedians), ratio: median(ratios) };
}

/** The answer, or a throw when it is an error: a failing call must not pass for a fast one. */
export async function answered(pending: Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const message = await pending;
  if (message.error !== undefined) throw new Error(`bench call failed: ${JSON.stringify(message.error)}`);
  return message;
}
