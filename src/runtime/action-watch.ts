import type { Budget } from "../budget.js";
import type { BrowserEvents, PageInfo } from "../cdp/browser.js";
import type { TabSession } from "../cdp/tab-session.js";
import type { PageChanges } from "./page-changes.js";

/** What an action made happen, besides its input: a navigation of the tab, pages it opened, a dialog. */
export interface ActionOutcome {
  navigated?: { url: string };
  /** Tab ids of the pages the tab opened (popups, `target=_blank`). */
  openedTabIds?: string[];
  dialog?: { type: string; message: string; defaultPrompt?: string };
  /** What changed on the page (absent when nothing did, or when the caller asked for none). */
  changes?: PageChanges;
}

/** Where new pages are announced (the Browser). */
export interface PageSource {
  on(event: "pageCreated", listener: (...args: BrowserEvents["pageCreated"]) => void): unknown;
  off(event: "pageCreated", listener: (...args: BrowserEvents["pageCreated"]) => void): unknown;
}

/**
 * Runs an action's input on a tab and reports what it set off. A navigation the input requested is waited for until
 * it commits (or the frame stops loading without one: cancelled, failed, a download; or the budget ends), as a user waits for the next page; a within-document navigation (a
 * history push) counts at once. Pages the tab opened and a dialog that opened are reported as they came; under
 * DIALOG_POLICY=manual a dialog ends the action at once, left open for dialog.handle.
 */
export async function watchAction(
  tab: TabSession,
  context: { budget: Budget; pages: PageSource; afterInput?: () => Promise<void> },
  act: () => Promise<void>,
): Promise<ActionOutcome> {
  const outcome: ActionOutcome = {};
  let requested = false;
  // Whether the frame began loading after the request: a stop before that is the previous document's.
  let loading = false;
  let settle: () => void = () => {};
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const mainFrame = (frameId: string): boolean => frameId === tab.tabId;
  const opened: string[] = [];
  let dialogOpened: () => void = () => {};
  const dialogShown = new Promise<void>((resolve) => (dialogOpened = resolve));
  const onPage = (page: PageInfo): void => void (page.openerId === tab.tabId && opened.push(page.tabId));
  const stops = [
    // Chrome announces a navigation the input scheduled before it acknowledges the input, the request itself after.
    tab.listen("Page.frameScheduledNavigation", (event) => void (mainFrame(event.frameId) && (requested = true))),
    tab.listen("Page.frameRequestedNavigation", (event) => void (mainFrame(event.frameId) && (requested = true))),
    tab.listen("Page.frameNavigated", (event) => {
      if (event.frame.parentId !== undefined) return;
      outcome.navigated = { url: event.frame.url + (event.frame.urlFragment ?? "") };
      settle();
    }),
    tab.listen("Page.navigatedWithinDocument", (event) => void (mainFrame(event.frameId) && (outcome.navigated = { url: event.url }))),
    tab.listen("Page.frameStartedLoading", (event) => void (mainFrame(event.frameId) && requested && (loading = true))),
    tab.listen("Page.frameStoppedLoading", (event) => void (mainFrame(event.frameId) && loading && settle())),
    tab.listen("Page.javascriptDialogOpening", (event) => {
      outcome.dialog = { type: event.type, message: event.message, ...(event.defaultPrompt ? { defaultPrompt: event.defaultPrompt } : {}) };
      dialogOpened();
    }),
  ];
  context.pages.on("pageCreated", onPage);
  try {
    const acting = act();
    if (tab.dialogPolicy === "manual") {
      // The page waits on a dialog left open, and so does the input that opened it: the action answers with the dialog.
      acting.catch(() => {});
      await Promise.race([acting, dialogShown]);
    } else {
      await acting;
      // The renderer asks the browser for a navigation while it handles the input, but Chrome may acknowledge the
      // input first: one more round trip to the page lets a request the input made arrive before the answer. The
      // caller's read of the page after the input (`afterInput`) is that round trip when it has one.
      if (!requested && !outcome.navigated) {
        if (context.afterInput) await context.afterInput();
        else await tab.send("Runtime.evaluate", { expression: "0" }, { budget: context.budget }).catch(() => {});
      }
    }
    if (requested && !outcome.navigated && !outcome.dialog)
      await Promise.race([settled, new Promise<void>((resolve) => context.budget.onEnd(resolve))]);
  } finally {
    for (const stop of stops) stop();
    context.pages.off("pageCreated", onPage);
  }
  if (opened.length > 0) outcome.openedTabIds = opened;
  return outcome;
}
