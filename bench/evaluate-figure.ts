import { answered, compareLatency, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

/** Median evaluate("1+1") round trip through the hub against raw CDP Runtime.evaluate on a held flattened session. */
export async function evaluateFigure(context: BenchContext): Promise<Figure> {
  const { hub, raw, target, sessionId, rounds, calls } = context;
  const result = await compareLatency({
    viaHub: () => answered(hub.send({ jsonrpc: "2.0", method: "evaluate", params: { target, expression: "1+1" } })),
    viaRaw: () => answered(raw.send({ method: "Runtime.evaluate", params: { expression: "1+1", returnByValue: true }, sessionId })),
    warmupCalls: 200,
    calls,
    rounds,
  });
  return { name: 'evaluate("1+1") round trip: hub / raw CDP Runtime.evaluate on a held session', unit: "ms", goal: "<= 1.3", ...result };
}
