import { compareThroughput, evaluateRaw, evaluateViaHub, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

const IN_FLIGHT = 16;
// A round at full speed is over in a fraction of a second: twice the latency figure's calls keep it measurable.
const CALLS_FACTOR = 2;

/** evaluate("1+1") calls per second with 16 in flight on one tab, hub against raw CDP pipelined on a held session. */
export async function throughputFigure(context: BenchContext): Promise<Figure> {
  const result = await compareThroughput(
    {
      viaHub: () => evaluateViaHub(context),
      viaAlternative: () => evaluateRaw(context),
      warmupCalls: 100,
      calls: context.calls * CALLS_FACTOR,
      rounds: context.rounds,
    },
    IN_FLIGHT,
  );
  return {
    name: `evaluate("1+1") throughput, ${IN_FLIGHT} in flight on one tab: hub / raw CDP pipelined on a held session`,
    label: `evaluate throughput, ${IN_FLIGHT} in flight, vs raw CDP`,
    unit: "calls/s",
    goal: ">= 0.9",
    ...result,
  };
}
