import { callsPerSecond, median, timeSequential } from "./stats.js";
import type { WsCaller } from "./ws-caller.js";

/** What every figure of the bench works with: the hub and a raw CDP socket on the same Chromium, one tab, the counts. */
export interface BenchContext {
  hub: WsCaller;
  raw: WsCaller;
  /** The browser's DevTools WebSocket address, for the alternatives that open their own connection. */
  cdpUrl: string;
  /** The tab, as the hub names it. */
  target: string;
  /** The same tab, as CDP names it. */
  tabId: string;
  /** A flattened session of the raw socket on the same tab. */
  sessionId: string;
  rounds: number;
  calls: number;
}

/** Two ways of doing one thing: through the hub and through the alternative it is held against. */
export interface Contenders {
  viaHub: () => Promise<unknown>;
  viaAlternative: () => Promise<unknown>;
  warmupCalls: number;
  calls: number;
  rounds: number;
}

/** What a comparison gives: the median of each side's per-round figures and the median of the per-round ratios. */
export interface Compared {
  hub: number;
  alternative: number;
  ratio: number;
}

/** Median latency of each, timed call by call, rounds interleaved so drift hits both; ratio = hub / alternative. */
export async function compareLatency(contenders: Contenders): Promise<Compared> {
  return interleave(contenders, async (call) => median(await timeSequential(contenders.calls, call)));
}

/** Calls per second of each with `inFlight` calls outstanding, rounds interleaved; ratio = hub / alternative. */
export async function compareThroughput(contenders: Contenders, inFlight: number): Promise<Compared> {
  return interleave(contenders, (call) => callsPerSecond(contenders.calls, inFlight, call));
}

async function interleave(contenders: Contenders, measure: (call: () => Promise<unknown>) => Promise<number>): Promise<Compared> {
  const { viaHub, viaAlternative, warmupCalls, rounds } = contenders;
  await timeSequential(warmupCalls, viaHub);
  await timeSequential(warmupCalls, viaAlternative);
  const hubFigures: number[] = [];
  const alternativeFigures: number[] = [];
  for (let round = 0; round < rounds; round++) {
    hubFigures.push(await measure(viaHub));
    alternativeFigures.push(await measure(viaAlternative));
  }
  const ratios = hubFigures.map((h, i) => h / (alternativeFigures[i] ?? h));
  return { hub: median(hubFigures), alternative: median(alternativeFigures), ratio: median(ratios) };
}

/** The answer, or a throw when it is an error: a failing call must not pass for a fast one. */
export async function answered(pending: Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const message = await pending;
  if (message.error !== undefined) throw new Error(`bench call failed: ${JSON.stringify(message.error)}`);
  return message;
}

/** The hub's evaluate of `expression` on the bench tab, checked for an error. */
export function evaluateViaHub(context: BenchContext, expression = "1+1"): Promise<Record<string, unknown>> {
  return answered(context.hub.send({ jsonrpc: "2.0", method: "evaluate", params: { target: context.target, expression } }));
}

/** Raw CDP `Runtime.evaluate` of `1+1` on the bench's held flattened session, checked for an error. */
export function evaluateRaw(context: BenchContext): Promise<Record<string, unknown>> {
  return answered(
    context.raw.send({ method: "Runtime.evaluate", params: { expression: "1+1", returnByValue: true }, sessionId: context.sessionId }),
  );
}

/** Median evaluate("1+1") round trip through the hub against a library's in-process page.evaluate, which must give 2. */
export function compareEvaluateWith(context: BenchContext, library: string, evaluate: () => Promise<unknown>): Promise<Compared> {
  return compareLatency({
    viaHub: () => evaluateViaHub(context),
    viaAlternative: async () => {
      const value = await evaluate();
      if (value !== 2) throw new Error(`${library} evaluated 1+1 to ${JSON.stringify(value)}`);
    },
    warmupCalls: 200,
    calls: context.calls,
    rounds: context.rounds,
  });
}
