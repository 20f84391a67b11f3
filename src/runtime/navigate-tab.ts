import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import type { TabSession } from "../cdp/tab-session.js";

/** When a navigation counts as done. */
export type WaitUntil = "load" | "domcontentloaded" | "none";

const LIFECYCLE_NAME: Readonly<Record<Exclude<WaitUntil, "none">, string>> = { load: "load", domcontentloaded: "DOMContentLoaded" };

/** Navigates the tab and waits for the new document's `load` or `DOMContentLoaded`; a failed load is NAVIGATION_FAILED. */
export async function navigateTab(tab: TabSession, url: string, waitUntil: WaitUntil, budget: Budget): Promise<void> {
  const seen = new Set<string>();
  let expected: string | null = null;
  let reached: (() => void) | null = null;
  const milestone = waitUntil === "none" ? null : LIFECYCLE_NAME[waitUntil];
  // Listen before navigating: a fast page can reach its milestone before Page.navigate answers.
  const stopListening = tab.listen("Page.lifecycleEvent", (event: Protocol.Page.LifecycleEventEvent) => {
    if (event.name !== milestone) return;
    seen.add(event.loaderId);
    if (event.loaderId === expected) reached?.();
  });
  try {
    const result = await tab.send("Page.navigate", { url }, { budget });
    if (result.errorText) {
      throw new HubError("NAVIGATION_FAILED", `cannot load ${url}: ${result.errorText}`, { errorText: result.errorText });
    }
    if (milestone === null || !result.loaderId || seen.has(result.loaderId)) return;
    expected = result.loaderId;
    await budget.race(untilClosedOr(tab, new Promise<void>((resolve) => (reached = resolve))));
  } finally {
    stopListening();
  }
}

function untilClosedOr(tab: TabSession, promise: Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const onClosed = (error: Error): void => reject(error);
    tab.cdp.once("closed", onClosed);
    promise.then(() => {
      tab.cdp.off("closed", onClosed);
      resolve();
    }, reject);
  });
}
