import type { SessionPool } from "../cdp/session-pool.js";
import { Budget } from "../budget.js";
import type { Screencasts } from "../events/screencast.js";
import type { TimelinePicture } from "../protocol/types.js";
import { imageSizeOfBase64 } from "../runtime/image-size.js";

// A picture is a reminder of the page, not a screenshot: 320 CSS pixels wide at JPEG quality 40 is about 6 KB.
const PICTURE_WIDTH_PX = 320;
const PICTURE_QUALITY = 40;
// A live view's frame is taken as it is when it is no bigger than this (base64 characters); a bigger one is captured anew.
const MAX_FRAME_CHARS = 32 * 1024;
// Chrome answers a capture when it has drawn a frame for it (35-50 ms here, the clip and scale a little more): that
// is most of what a picture costs, and why they are off by default.
// A picture never holds up a call longer than this: a tab that cannot draw (busy, hidden) just has none.
const PICTURE_TIMEOUT_MS = 1_000;

/**
 * The small before and after pictures of actions (TIMELINE_PICTURES=on): the newest frame of the tab's live view when
 * one runs and is small (before an action only: the frame of its effect may not have come yet), else a viewport
 * capture scaled to PICTURE_WIDTH_PX. Undefined when the tab cannot give one in time.
 */
export class TimelinePictures {
  #pool: SessionPool;
  #screencasts: Screencasts;

  constructor(pool: SessionPool, screencasts: Screencasts) {
    this.#pool = pool;
    this.#screencasts = screencasts;
  }

  /** A picture of the tab as it is now; `isBefore` allows the live view's last frame. */
  async take(tabId: string, isBefore: boolean): Promise<TimelinePicture | undefined> {
    const frame = isBefore ? this.#screencasts.lastFrame(tabId) : null;
    const budget = new Budget(PICTURE_TIMEOUT_MS);
    try {
      if (frame && frame.data.length <= MAX_FRAME_CHARS) return { data: frame.data, ...sizeOf(frame.data) };
      return await this.#capture(tabId, budget);
    } catch {
      // A picture is never the call's failure: the entry just has none.
      return undefined;
    } finally {
      budget.dispose();
    }
  }

  async #capture(tabId: string, budget: Budget): Promise<TimelinePicture> {
    const tab = await this.#pool.acquire(tabId, budget);
    const { cssVisualViewport: view } = await tab.send("Page.getLayoutMetrics", undefined, { budget });
    const scale = Math.min(1, PICTURE_WIDTH_PX / Math.max(1, view.clientWidth));
    const clip = { x: view.pageX, y: view.pageY, width: view.clientWidth, height: view.clientHeight, scale };
    const shot = await tab.send(
      "Page.captureScreenshot",
      { format: "jpeg", quality: PICTURE_QUALITY, optimizeForSpeed: true, clip },
      { budget },
    );
    return { data: shot.data, width: Math.round(view.clientWidth * scale), height: Math.round(view.clientHeight * scale) };
  }
}

function sizeOf(jpeg: string): { width: number; height: number } {
  const { width, height } = imageSizeOfBase64(jpeg);
  return { width, height };
}
