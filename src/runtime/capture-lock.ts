import { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import { inSnapshotWorld } from "./snapshot-world.js";

const STOP_TIMEOUT_MS = 1_000;
// A shown page answers within a millisecond or two; one whose main thread is busy is treated as hidden past this.
const VISIBILITY_TIMEOUT_MS = 250;
// A 1x1 frame at most once every 1,000 compositor frames: the screencast is held only for its side effect.
const KEEP_RENDERING = { format: "jpeg", quality: 0, maxWidth: 1, maxHeight: 1, everyNthFrame: 1_000 } as const;

// Chrome's answer while the tab's frame is between two documents (a navigation committing in another process).
const BETWEEN_DOCUMENTS = /Not attached to an active page/;

const tails = new WeakMap<TabSession, Promise<void>>();

/** Runs a capture alone on its tab, with the tab kept rendering even when it is a background tab. */
export function withCaptureLock<T>(tab: TabSession, budget: Budget, capture: () => Promise<T>): Promise<T> {
  return aloneOnTab(tab, budget, () => keepRendering(tab, budget, capture));
}

/**
 * Runs `work` when the tab's captures and prints before it are done: one at a time per tab (a captureBeyondViewport
 * capture resizes the view another one measures; Chrome leaves a second print of a tab waiting forever).
 */
export async function aloneOnTab<T>(tab: TabSession, budget: Budget, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(tab) ?? Promise.resolve();
  let unlock = (): void => {};
  const mine = new Promise<void>((resolve) => (unlock = resolve));
  // The next capture waits for this one's predecessor too, so a caller that gives up waiting never lets it skip ahead.
  tails.set(
    tab,
    previous.then(() => mine),
  );
  try {
    await budget.race(previous);
    return await work();
  } finally {
    unlock();
  }
}

/**
 * A background tab's view is hidden and produces no compositor frames, so Page.captureScreenshot on it waits
 * seconds or forever; a running screencast makes Chrome render the tab while it stays hidden (not activated). A tab
 * in view is captured without one: starting a screencast makes the capture wait a frame more (16 ms against 33 ms
 * on an idle page, measured on Chromium 156).
 */
async function keepRendering<T>(tab: TabSession, budget: Budget, capture: () => Promise<T>): Promise<T> {
  const screencast = !(await isInView(tab, budget));
  try {
    if (screencast) await tab.send("Page.startScreencast", KEEP_RENDERING, { budget });
    return await capture();
  } catch (error) {
    if (!BETWEEN_DOCUMENTS.test(String(error))) throw error;
    if (tab.cdp.closedBy) throw tab.cdp.closedBy;
    throw new HubError("PAGE_NAVIGATED", "the page was navigating (between two documents) when it was to be captured; capture it again");
  } finally {
    // Sent even when the start was cut short: Chrome may have started it anyway.
    if (screencast) tab.send("Page.stopScreencast", undefined, { timeoutMs: STOP_TIMEOUT_MS }).catch(() => {});
  }
}

/**
 * Whether the tab's document is shown, read in the hub's own world of the page (so a page script cannot make a
 * hidden tab pass for a shown one). Anything else (no answer within VISIBILITY_TIMEOUT_MS, a document being
 * replaced, a script stopped) counts as hidden: the screencast then keeps the tab rendering, as for a background tab.
 */
async function isInView(tab: TabSession, budget: Budget): Promise<boolean> {
  const check = new Budget(Math.max(0, Math.min(VISIBILITY_TIMEOUT_MS, budget.remainingMs())));
  try {
    return await inSnapshotWorld(tab, { frameId: tab.tabId, budget: check }, async (contextId) => {
      const { result } = await tab.send(
        "Runtime.evaluate",
        { expression: "document.visibilityState", contextId, returnByValue: true },
        { budget: check },
      );
      return result.value === "visible";
    });
  } catch {
    return false;
  } finally {
    check.dispose();
  }
}
