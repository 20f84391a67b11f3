import { answered, compareLatency, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

// A capture takes tens of milliseconds: fewer calls than the evaluate figure keep the run short.
const CALLS = 20;

/** Median `screenshot` (png, viewport) through the hub against raw Page.captureScreenshot (png) on a held session. */
export async function screenshotFigure(context: BenchContext): Promise<Figure> {
  const { hub, raw, target, sessionId, rounds } = context;
  const result = await compareLatency({
    viaHub: () => answered(hub.send({ jsonrpc: "2.0", method: "screenshot", params: { target } })),
    viaAlternative: () => answered(raw.send({ method: "Page.captureScreenshot", params: { format: "png" }, sessionId })),
    warmupCalls: 5,
    calls: CALLS,
    rounds,
  });
  return {
    name: "screenshot (png, viewport) round trip: hub / raw CDP Page.captureScreenshot on a held session",
    label: "screenshot png vs raw Page.captureScreenshot",
    unit: "ms",
    goal: "<= 1.1",
    ...result,
  };
}
