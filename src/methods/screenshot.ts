import { HubError } from "../errors.js";
import type { ParamsProblem } from "../rpc/params-validator.js";
import { captureScreenshot, type CaptureArea, type CssRect } from "../runtime/capture-screenshot.js";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { callOnElement } from "../runtime/call-on-element.js";
import type { FrameSession } from "../cdp/remote-frames.js";
import { FRAME_CONTENT_ORIGIN, remoteFrameOrigin } from "../runtime/actionable.js";
import { releaseObjects } from "../runtime/element-object.js";
import { nextObjectGroup } from "../runtime/guarded-call.js";
import { refTableOf } from "../runtime/ref-registry.js";
import type { ValidatedParams } from "../protocol/types.js";
import { acquireTab, defineMethod } from "../services.js";

/** `screenshot`: the viewport, the whole page, a clip or one element as a png, jpeg or webp image of exact size. */
export const screenshot = defineMethod("screenshot", { runs: "tab" }, async (params, call) => {
  const problems = combinationProblems(params);
  if (problems.length > 0) {
    const summary = problems.map((p) => `${p.path} ${p.message}`).join("; ");
    throw new HubError("INVALID_PARAMS", `invalid params for screenshot: ${summary}`, { errors: problems });
  }
  const { tab } = await acquireTab(call, params.target);
  const area = params.ref !== undefined ? await refArea(tab, params.ref, call.budget) : captureArea(params);
  return captureScreenshot(tab, { ...params, area, maxPixels: call.services.config.maxScreenshotPixels }, call.budget);
});

/** The params that each pass the schema but do not go together. */
function combinationProblems(params: ValidatedParams<"screenshot">): ParamsProblem[] {
  const problems: ParamsProblem[] = [];
  const hasElement = params.ref !== undefined || params.selector !== undefined;
  if (params.quality !== undefined && params.format === "png")
    problems.push({ path: "/quality", message: "applies to jpeg and webp only (png is lossless)" });
  if (params.ref !== undefined && params.selector !== undefined)
    problems.push({ path: "/selector", message: "give ref or selector, not both" });
  if (params.clip && params.fullPage) problems.push({ path: "/clip", message: "cannot be combined with fullPage" });
  if (params.clip && hasElement) problems.push({ path: "/clip", message: "cannot be combined with ref or selector" });
  if (params.fullPage && hasElement) problems.push({ path: "/fullPage", message: "cannot be combined with ref or selector" });
  return problems;
}

function captureArea(params: ValidatedParams<"screenshot">): CaptureArea {
  if (params.selector !== undefined) return { kind: "element", selector: params.selector };
  if (params.clip) return { kind: "clip", clip: params.clip };
  return { kind: params.fullPage ? "fullPage" : "viewport" };
}

// The element's border box in the viewport of its process's top document (the frames above it in the same process
// added), and that document's scroll offset.
const BORDER_BOX = `function () {
  const r = this.getBoundingClientRect();
  const origin = (${FRAME_CONTENT_ORIGIN})(this.ownerDocument.defaultView.frameElement);
  let top = this.ownerDocument.defaultView;
  while (top.frameElement) top = top.parent;
  return { x: r.left + origin.x, y: r.top + origin.y, width: r.width, height: r.height, scrollX: top.scrollX, scrollY: top.scrollY };
}`;

/**
 * A ref of the tab's latest snapshot, resolved as callOn resolves it, becomes the clip of its element's box in
 * document coordinates; inside a cross-site frame, the frame's place in the tab and the tab's scroll are added.
 */
async function refArea(tab: TabSession, ref: string, budget: Budget): Promise<CaptureArea> {
  const { remoteFrame } = refTableOf(tab).node(ref);
  const box = await callOnElement(
    tab,
    { functionDeclaration: BORDER_BOX, element: { ref }, args: [], awaitPromise: false, captureConsole: false },
    budget,
  );
  const measured = box.value as (CssRect & { scrollX: number; scrollY: number }) | undefined;
  const offset =
    remoteFrame === undefined ? measured && { x: measured.scrollX, y: measured.scrollY } : await offsetInTab(tab, remoteFrame, budget);
  const rect = measured && offset && { x: measured.x + offset.x, y: measured.y + offset.y, width: measured.width, height: measured.height };
  if (!rect || rect.width <= 0 || rect.height <= 0) {
    throw new HubError(
      "NODE_NOT_FOUND",
      `the element of ref ${ref} has an empty box (hidden or display: none), so there is nothing to capture`,
    );
  }
  return { kind: "clip", clip: rect };
}

/** Where a cross-site frame's viewport begins in the tab's document: its place in the tab's viewport plus the tab's scroll. */
async function offsetInTab(tab: TabSession, remoteFrame: string, budget: Budget): Promise<{ x: number; y: number }> {
  const scope = { tab, budget, objectGroup: nextObjectGroup(), remoteSessions: new Set<FrameSession>() };
  try {
    const [origin, { result }] = await Promise.all([
      remoteFrameOrigin(scope, remoteFrame),
      tab.send("Runtime.evaluate", { expression: "[scrollX, scrollY]", returnByValue: true }, { budget }),
    ]);
    const [scrollX, scrollY] = result.value as [number, number];
    return { x: origin.x + scrollX, y: origin.y + scrollY };
  } finally {
    releaseObjects(scope);
  }
}
