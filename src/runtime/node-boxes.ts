import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";

/** A node's box in the viewport, CSS pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The layout box of every node of the main frame's document, by backendDOMNodeId, in one DOMSnapshot call. */
export async function nodeBoxes(tab: TabSession, budget: Budget): Promise<Map<number, Box>> {
  const { documents } = await tab.send("DOMSnapshot.captureSnapshot", { computedStyles: [] }, { budget });
  const boxes = new Map<number, Box>();
  const main = documents[0];
  if (!main) return boxes;
  const scrollX = main.scrollOffsetX ?? 0;
  const scrollY = main.scrollOffsetY ?? 0;
  const backendIds = main.nodes.backendNodeId ?? [];
  main.layout.nodeIndex.forEach((nodeIndex, i) => {
    const backendNodeId = backendIds[nodeIndex];
    const [x = 0, y = 0, width = 0, height = 0] = main.layout.bounds[i] ?? [];
    // A node laid out in pieces (an inline split over lines) keeps its first box.
    if (backendNodeId !== undefined && !boxes.has(backendNodeId)) {
      boxes.set(backendNodeId, { x: round(x - scrollX), y: round(y - scrollY), width: round(width), height: round(height) });
    }
  });
  return boxes;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
