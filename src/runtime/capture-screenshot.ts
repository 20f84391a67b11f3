import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { ProtocolError } from "../cdp/callback-registry.js";
import type { TabSession } from "../cdp/tab-session.js";
import type { Result, ValidatedParams } from "../protocol/types.js";
import { HubError } from "../errors.js";
import { withCaptureLock } from "./capture-lock.js";
import { runHubScript } from "./hub-script.js";
import { imageSizeOfBase64 } from "./image-size.js";
import { isContextGone, protocolFailureOf } from "../cdp/protocol-errors.js";

/** An image format Chrome encodes screenshots in. */
export type ImageFormat = ValidatedParams<"screenshot">["format"];

/** A rectangle in CSS pixels, in document coordinates. */
export interface CssRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The part of the page a screenshot shows. */
export type CaptureArea =
  { kind: "viewport" } | { kind: "fullPage" } | { kind: "clip"; clip: CssRect } | { kind: "element"; selector: string };

/** The params of `screenshot` once validated, with the area picked out. */
export interface ScreenshotOptions {
  format: ImageFormat;
  quality?: number;
  /** Chrome's faster, larger encoding. */
  optimizeForSpeed?: boolean;
  area: CaptureArea;
  scale?: number;
  maxWidth?: number;
  maxHeight?: number;
  /** The most pixels an image may have (MAX_SCREENSHOT_PIXELS). */
  maxPixels: number;
}

/** What screenshot answers. */
export type ScreenshotResult = Result<"screenshot">;

/** What the page reports about itself before a capture, in CSS pixels. */
interface PageGeometry {
  viewport: CssRect;
  devicePixelRatio: number;
  element: CssRect | null;
}

const MIME_TYPES = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" } as const satisfies Record<ImageFormat, string>;
/** Chrome's own default, made explicit so that the description can promise it. */
const DEFAULT_QUALITY = 80;
// Layout arithmetic leaves float noise (237.00000001); without this slack an edge would grow by a whole pixel.
const EDGE_SLACK_PX = 1e-6;
const MAX_CAPTURES = 3;

/**
 * Captures an area of the tab's page; the returned width and height are the exact pixel size of the image. The
 * viewport at scale 1 is one Page.captureScreenshot with no clip (a clip costs Chrome about a frame), captured again
 * scaled only when it is larger than maxWidth x maxHeight; every other area is measured first, and refused past
 * `options.maxPixels` before anything is captured.
 */
export function captureScreenshot(tab: TabSession, options: ScreenshotOptions, budget: Budget): Promise<ScreenshotResult> {
  const encoding = {
    format: options.format,
    ...(options.format === "png" ? {} : { quality: options.quality ?? DEFAULT_QUALITY }),
    ...(options.optimizeForSpeed ? { optimizeForSpeed: true } : {}),
  };
  return withCaptureLock(tab, budget, async () => {
    if (isWholeViewport(options)) {
      // The viewport as it is, unless it turns out larger than maxWidth x maxHeight: then it is measured and scaled.
      const data = await captureImage(tab, { ...encoding, fromSurface: true }, budget);
      const { width, height } = imageSizeOfBase64(data);
      if (width <= (options.maxWidth ?? Infinity) && height <= (options.maxHeight ?? Infinity)) {
        return { format: options.format, mimeType: MIME_TYPES[options.format], data, width, height };
      }
    }
    const { geometry, area } = await measure(tab, options.area, budget);
    const dpr = geometry.devicePixelRatio;
    const scale = fitScale(area, dpr, options);
    const [width, height] = [toPixels(area.width, scale, dpr), toPixels(area.height, scale, dpr)];
    checkPixels(width, height, options.maxPixels);
    const data = await captureImage(
      tab,
      {
        ...encoding,
        clip: { ...area, scale },
        // Capturing beyond the viewport resizes the view (vh units reflow, resize events fire): only when needed.
        captureBeyondViewport: !contains(snapToPixels(geometry.viewport), area),
        fromSurface: true,
      },
      budget,
    );
    return { format: options.format, mimeType: MIME_TYPES[options.format], data, width, height };
  });
}

/** The viewport at scale 1: captured as it is when it fits maxWidth x maxHeight (always, when they are not given). */
function isWholeViewport(options: ScreenshotOptions): boolean {
  return options.area.kind === "viewport" && (options.scale ?? 1) === 1;
}

function checkPixels(width: number, height: number, maxPixels: number): void {
  if (width * height <= maxPixels) return;
  throw new HubError(
    "INVALID_PARAMS",
    `the screenshot would be ${width}x${height} = ${width * height} pixels, above MAX_SCREENSHOT_PIXELS (${maxPixels}); capture less with clip, scale, maxWidth or maxHeight`,
    { errors: [{ path: "/", message: `must make an image of at most ${maxPixels} pixels` }] },
  );
}

/**
 * Page.captureScreenshot, sent again when Chrome answers "Unable to capture screenshot" (its view had no frame to
 * copy, as happens while the tab replaces its document): at most MAX_CAPTURES times, then PAGE_NAVIGATED.
 */
export async function captureImage(
  tab: Pick<TabSession, "send" | "cdp">,
  params: Protocol.Page.CaptureScreenshotRequest,
  budget: Budget,
): Promise<string> {
  for (let captures = 1; ; captures++) {
    try {
      return (await tab.send("Page.captureScreenshot", params, { budget })).data;
    } catch (error) {
      if (tab.cdp.closedBy) throw tab.cdp.closedBy;
      if (!(error instanceof ProtocolError) || protocolFailureOf(error) !== "uncapturable") throw error;
      if (captures >= MAX_CAPTURES) {
        throw new HubError(
          "PAGE_NAVIGATED",
          `Chrome could not capture the page ${MAX_CAPTURES} times ("Unable to capture screenshot", as while a tab replaces its document); take it again`,
        );
      }
    }
  }
}

/** The page's geometry and the area to capture, snapped outward to whole CSS pixels. */
async function measure(tab: TabSession, area: CaptureArea, budget: Budget): Promise<{ geometry: PageGeometry; area: CssRect }> {
  const selector = area.kind === "element" ? area.selector : null;
  const [geometry, metrics] = await Promise.all([
    probe(tab, selector, budget),
    area.kind === "fullPage" ? tab.send("Page.getLayoutMetrics", undefined, { budget }) : null,
  ]);
  return { geometry, area: snapToPixels(areaRect(area, geometry, metrics?.cssContentSize)) };
}

function areaRect(area: CaptureArea, geometry: PageGeometry, content: CssRect | undefined): CssRect {
  if (area.kind === "clip") return area.clip;
  const rect = area.kind === "viewport" ? geometry.viewport : area.kind === "element" ? geometry.element : content;
  if (!rect) throw new Error(`no rectangle was measured for a ${area.kind} capture`);
  return rect;
}

/** The scale that applies `scale` and then shrinks the image to fit maxWidth x maxHeight, never enlarging it. */
function fitScale(area: CssRect, dpr: number, options: ScreenshotOptions): number {
  const scale = options.scale ?? 1;
  const fit = Math.min(
    1,
    (options.maxWidth ?? Infinity) / (area.width * scale * dpr),
    (options.maxHeight ?? Infinity) / (area.height * scale * dpr),
  );
  return scale * fit;
}

/** The pixel length Chrome gives a CSS length: rounded half up, at least one pixel (measured on Chromium 156). */
function toPixels(cssLength: number, scale: number, dpr: number): number {
  return Math.max(1, Math.round(cssLength * scale * dpr));
}

function snapToPixels(rect: CssRect): CssRect {
  const x = Math.floor(rect.x + EDGE_SLACK_PX);
  const y = Math.floor(rect.y + EDGE_SLACK_PX);
  const right = Math.ceil(rect.x + rect.width - EDGE_SLACK_PX);
  const bottom = Math.ceil(rect.y + rect.height - EDGE_SLACK_PX);
  return { x, y, width: Math.max(1, right - x), height: Math.max(1, bottom - y) };
}

function contains(outer: CssRect, inner: CssRect): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height
  );
}

/** One round trip for the viewport, the device pixel ratio and, with a selector, the element's border box. */
async function probe(tab: TabSession, selector: string | null, budget: Budget): Promise<PageGeometry> {
  const response = await runHubScript("the hub's measuring of the page", () =>
    tab.send("Runtime.evaluate", { expression: probeExpression(selector), returnByValue: true, silent: true }, { budget }),
  ).catch((error: unknown) => Promise.reject(asNavigated(tab, error)));
  if (response.exceptionDetails) throw probeFailure(selector, response.exceptionDetails);
  const value: unknown = response.result.value;
  if (!isGeometry(value)) throw new Error("the page geometry probe returned an unexpected value");
  if (selector !== null) checkElement(selector, value.element);
  return value;
}

function probeExpression(selector: string | null): string {
  const find = selector === null ? "null" : `document.querySelector(${JSON.stringify(selector)})`;
  return `(() => {
  const element = ${find};
  const box = element === null ? null : element.getBoundingClientRect();
  return {
    viewport: { x: scrollX, y: scrollY, width: innerWidth, height: innerHeight },
    devicePixelRatio,
    element: box === null ? null : { x: box.left + scrollX, y: box.top + scrollY, width: box.width, height: box.height },
  };
})()`;
}

function checkElement(selector: string, element: CssRect | null): void {
  if (element === null) {
    throw new HubError(
      "NODE_NOT_FOUND",
      `no element matches the selector ${JSON.stringify(selector)}; check the selector, or wait until the page has drawn it`,
    );
  }
  if (element.width <= 0 || element.height <= 0) {
    throw new HubError(
      "NODE_NOT_FOUND",
      `the element matching ${JSON.stringify(selector)} has an empty box (${element.width}x${element.height} CSS px: hidden, display: none or empty), so there is nothing to capture`,
    );
  }
}

function probeFailure(selector: string | null, details: Protocol.Runtime.ExceptionDetails): Error {
  const reason = details.exception?.description?.split("\n")[0] ?? details.text;
  if (selector === null) return new Error(`the page geometry probe threw: ${reason}`);
  return new HubError("INVALID_PARAMS", `selector ${JSON.stringify(selector)} cannot be used: ${reason}`, {
    errors: [{ path: "/selector", message: "is not a valid CSS selector" }],
  });
}

function asNavigated(tab: TabSession, error: unknown): unknown {
  if (tab.cdp.closedBy) return tab.cdp.closedBy;
  if (!isContextGone(error)) return error;
  return new HubError("PAGE_NAVIGATED", "the page navigated or reloaded while the screenshot was being measured; take it again");
}

function isGeometry(value: unknown): value is PageGeometry {
  if (typeof value !== "object" || value === null) return false;
  const geometry = value as Record<string, unknown>;
  const ratio = geometry.devicePixelRatio;
  return isRect(geometry.viewport) && typeof ratio === "number" && ratio > 0 && (geometry.element === null || isRect(geometry.element));
}

function isRect(value: unknown): value is CssRect {
  if (typeof value !== "object" || value === null) return false;
  const rect = value as Record<string, unknown>;
  return [rect.x, rect.y, rect.width, rect.height].every((n) => typeof n === "number" && Number.isFinite(n));
}
