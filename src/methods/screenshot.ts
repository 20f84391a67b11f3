import { HubError } from "../errors.js";
import type { ParamsProblem } from "../rpc/params-validator.js";
import { captureScreenshot, type CaptureArea } from "../runtime/capture-screenshot.js";
import { refBox } from "../runtime/ref-box.js";
import type { ValidatedParams } from "../protocol/types.js";
import { acquireTab, defineMethod } from "../services.js";

/** `screenshot`: the viewport, the whole page, a clip or one element as a png, jpeg or webp image of exact size. */
export const screenshot = defineMethod("screenshot", { runs: "tab", needs: "read", reads: true }, async (params, call) => {
  const problems = combinationProblems(params);
  if (problems.length > 0) {
    const summary = problems.map((p) => `${p.path} ${p.message}`).join("; ");
    throw new HubError("INVALID_PARAMS", `invalid params for screenshot: ${summary}`, { errors: problems });
  }
  const { tab } = await acquireTab(call, params.target);
  const area: CaptureArea =
    params.ref !== undefined ? { kind: "clip", clip: await refBox(tab, params.ref, call.budget) } : captureArea(params);
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
