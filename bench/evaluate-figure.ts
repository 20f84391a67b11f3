import { compareLatency, evaluateRaw, evaluateViaHub, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

/** Median evaluate("1+1") round trip through the hub against raw CDP Runtime.evaluate on a held flattened session. */
export async function evaluateFigure(context: BenchContext): Promise<Figure> {
  const { rounds, calls } = context;
  const result = await compareLatency({
    viaHub: () => evaluateViaHub(context),
    viaAlternative: () => evaluateRaw(context),
    warmupCalls: 200,
    calls,
    rounds,
  });
  return {
    name: 'evaluate("1+1") round trip: hub / raw CDP Runtime.evaluate on a held session',
    label: "evaluate 1+1 vs raw CDP (held session)",
    unit: "ms",
    goal: "<= 1.3",
    ...result,
  };
}
