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
    await untilReached(tab, new Promise<void>((resolve) => (reached = resolve)), budget);
  } finally {
    stopListening();
  }
}

/**
 * Waits for `reached` unless the tab's session closes (its reason) or the budget ends first. A session that closed
 * before this wait began counts too: Chrome's detach can come in the same read as Page.navigate's answer, ahead of
 * the code after the await. No listener outlives the wait.
 */
async function untilReached(tab: TabSession, reached: Promise<void>, budget: Budget): Promise<void> {
  if (tab.cdp.closedBy) throw tab.cdp.closedBy;
  let onClosed = (_error: Error): void => {};
  const closed = new Promise<never>((_resolve, reject) => (onClosed = reject));
  tab.cdp.once("closed", onClosed);
  try {
    await budget.race(Promise.race([reached, closed]));
  } finally {
    tab.cdp.off("closed", onClosed);
  }
}
