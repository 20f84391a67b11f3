import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import type { TabSession } from "../cdp/tab-session.js";
import { shortUrl } from "../cdp/pending-load.js";
import { protocolFailureOf } from "../cdp/protocol-errors.js";
import { LoaderWatch } from "./loader-watch.js";

/** When a navigation counts as done. */
export type WaitUntil = "load" | "domcontentloaded" | "none";

/** Chrome's lifecycle event for each milestone a navigation may wait for. */
export const LIFECYCLE_NAME: Readonly<Record<Exclude<WaitUntil, "none">, string>> = { load: "load", domcontentloaded: "DOMContentLoaded" };
// Chrome commits its error page a few milliseconds after Page.navigate answers errorText; this is the most it is waited for.
const ERROR_PAGE_WAIT_MS = 5_000;

/**
 * Navigates the tab and waits for the new document's `load` or `DOMContentLoaded`. A failed load is
 * NAVIGATION_FAILED once Chrome's error page has replaced the document, so the tab's next call runs on that page; one
 * past the budget is TIMEOUT naming the URL and whether the tab still waits for it (it goes on loading).
 */
export async function navigateTab(tab: TabSession, to: { url: string; waitUntil: WaitUntil }, budget: Budget): Promise<void> {
  try {
    await loadUrl(tab, to, budget);
  } catch (error) {
    if (protocolFailureOf(error) === "invalid-url") {
      const message = `"${to.url.slice(0, 200)}" is not a URL Chrome can load; give a whole URL, e.g. https://example.com/path`;
      throw new HubError("INVALID_PARAMS", message, { errors: [{ path: "/url", message: "is not a valid URL" }] });
    }
    throw error === budget.reason && budget.isTimedOut ? loadTimedOut(tab, to, budget) : error;
  }
}

async function loadUrl(tab: TabSession, to: { url: string; waitUntil: WaitUntil }, budget: Budget): Promise<void> {
  const { url, waitUntil } = to;
  const milestone = waitUntil === "none" ? null : LIFECYCLE_NAME[waitUntil];
  // Listen before navigating: a fast page can reach its milestone, or commit its error page, before Page.navigate answers.
  const lifecycle = new LoaderWatch(tab, "Page.lifecycleEvent", (event) => (event.name === milestone ? event.loaderId : null));
  const committed = new LoaderWatch(tab, "Page.frameNavigated", (event) =>
    event.frame.parentId === undefined ? event.frame.loaderId : null,
  );
  let onStarted = (): void => {};
  const started = new Promise<null>((resolve) => (onStarted = () => resolve(null)));
  const stopStarted = tab.listen("Page.frameStartedNavigating", (event) => void (event.frameId === tab.tabId && onStarted()));
  try {
    const navigating = tab.send("Page.navigate", { url }, { budget });
    // Page.navigate answers once the server has: `none` answers as soon as the navigation has started.
    const result = milestone === null ? await Promise.race([navigating, started]) : await navigating;
    if (result === null) return void navigating.catch(() => {});
    if (result.errorText) {
      if (settlesOnErrorPage(result)) await errorPageCommitted(tab, committed.reached(result.loaderId as string), budget);
      throw new HubError("NAVIGATION_FAILED", `cannot load ${url}: ${result.errorText}`, { errorText: result.errorText });
    }
    if (milestone === null || !result.loaderId) return;
    await untilReached(tab, lifecycle.reached(result.loaderId), budget);
  } finally {
    stopStarted();
    lifecycle.stop();
    committed.stop();
  }
}

/** Whether Chrome shows an error page for a failed navigation: not for one cancelled (ERR_ABORTED) or a download. */
function settlesOnErrorPage(result: Protocol.Page.NavigateResponse): boolean {
  return result.loaderId !== undefined && result.errorText !== "net::ERR_ABORTED" && result.isDownload !== true;
}

/** Waits for the error page's commit within the budget and ERROR_PAGE_WAIT_MS; past them the failure is answered anyway. */
async function errorPageCommitted(tab: TabSession, committed: Promise<void>, budget: Budget): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(ERROR_PAGE_WAIT_MS, budget.remainingMs()))));
  try {
    await Promise.race([untilReached(tab, committed, budget).catch(() => {}), waited]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The TIMEOUT of a navigation to `url` past its budget: the tab still waiting for the page's server, or showing the
 * page before its `waitUntil` event. Either way Chrome goes on loading it.
 */
export function loadTimedOut(tab: TabSession, to: { url: string; waitUntil: WaitUntil }, budget: Budget): HubError {
  const waiting = tab.pendingLoad !== null;
  const what = waiting
    ? `the tab is still loading it and goes on (calls that need its page answer PAGE_LOADING until it arrives): call again later, navigate elsewhere, go back, or stop the load (tabs.stop)`
    : `its page is there, and goes on loading`;
  const milestone = waiting ? "" : ` (its ${to.waitUntil} event)`;
  return new HubError("TIMEOUT", `${shortUrl(to.url)} did not load${milestone} within ${budget.timeoutMs} ms; ${what}`, {
    timeoutMs: budget.timeoutMs,
    terminated: false,
    url: to.url,
    committed: !waiting,
  });
}

/**
 * Waits for `reached` unless the tab's session closes (its reason) or the budget ends first. A session that closed
 * before this wait began counts too: Chrome's detach can come in the same read as Page.navigate's answer, ahead of
 * the code after the await. No listener outlives the wait.
 */
export async function untilReached<T>(tab: TabSession, reached: Promise<T>, budget: Budget): Promise<T> {
  if (tab.cdp.closedBy) throw tab.cdp.closedBy;
  let onClosed = (_error: Error): void => {};
  const closed = new Promise<never>((_resolve, reject) => (onClosed = reject));
  tab.cdp.once("closed", onClosed);
  try {
    return await budget.race(Promise.race([reached, closed]));
  } finally {
    tab.cdp.off("closed", onClosed);
  }
}
