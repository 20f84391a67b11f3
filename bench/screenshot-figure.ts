import { answered, compareLatency, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

// A capture takes tens of milliseconds: fewer calls than the evaluate figure keep the run short.
const CALLS = 20;
// Measured on a tab of its own with something drawn, opened after the bench tab, as a caller's tabs are (the quick
// start's tab comes after Chrome's first one). On the bench's own about:blank tab a clipped capture cost no more than a
// plain one, which hid the frame the hub's measured, clipped viewport capture cost on a later tab (1.20-1.43x raw).
const DRAWN_PAGE = `data:text/html,${encodeURIComponent(
  "<title>bench</title><h1 style='font:40px serif'>tabwire</h1><p>A page with text and a gradient to draw.</p>" +
    "<div style='width:320px;height:200px;background:linear-gradient(red,blue)'></div>",
)}`;

/** Median `screenshot` (png, viewport) through the hub against raw Page.captureScreenshot (png) on a held session, on a drawn page. */
export async function screenshotFigure(context: BenchContext): Promise<Figure> {
  const { hub, raw, rounds } = context;
  const opened = (await answered(hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: DRAWN_PAGE } }))) as {
    result: { target: string; tabId: string };
  };
  const { target, tabId } = opened.result;
  const attached = (await answered(raw.send({ method: "Target.attachToTarget", params: { targetId: tabId, flatten: true } }))) as {
    result: { sessionId: string };
  };
  const { sessionId } = attached.result;
  try {
    const result = await compareLatency({
      viaHub: () => answered(hub.send({ jsonrpc: "2.0", method: "screenshot", params: { target } })),
      viaAlternative: () => answered(raw.send({ method: "Page.captureScreenshot", params: { format: "png" }, sessionId })),
      warmupCalls: 5,
      calls: CALLS,
      rounds,
    });
    return {
      name: "screenshot (png, viewport, drawn page) round trip: hub / raw CDP Page.captureScreenshot on a held session",
      label: "screenshot png vs raw Page.captureScreenshot",
      unit: "ms",
      goal: "<= 1.1",
      ...result,
    };
  } finally {
    await raw.send({ method: "Target.detachFromTarget", params: { sessionId } });
    await hub.send({ jsonrpc: "2.0", method: "tabs.close", params: { target } });
  }
}
