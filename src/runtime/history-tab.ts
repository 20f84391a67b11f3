import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import type { TabSession } from "../cdp/tab-session.js";
import { shortUrl } from "../cdp/pending-load.js";
import { protocolFailureOf } from "../cdp/protocol-errors.js";
import { LIFECYCLE_NAME, loadTimedOut, untilReached, type WaitUntil } from "./navigate-tab.js";

/** A move in the tab's history. */
export type HistoryStep = "back" | "forward";

/**
 * Goes one entry back or forward in the tab's history (Page.navigateToHistoryEntry) and waits as navigate does;
 * INVALID_PARAMS when there is no entry that way. A load still pending is given up for it, as in a browser.
 */
export async function goInHistory(tab: TabSession, how: { step: HistoryStep; waitUntil: WaitUntil }, budget: Budget): Promise<void> {
  const { currentIndex, entries } = await tab.sendWhenAttached("Page.getNavigationHistory", undefined, budget);
  const entry = entries[currentIndex + (how.step === "back" ? -1 : 1)];
  if (!entry) {
    const where = how.step === "back" ? "first" : "last";
    const message = `the tab has no page to go ${how.step} to: ${shortUrl(entries[currentIndex]?.url ?? "its page")} is the ${where} of its history`;
    throw new HubError("INVALID_PARAMS", `invalid params for tabs.${how.step}: ${message}`, { errors: [{ path: "/target", message }] });
  }
  const start = (): Promise<unknown> =>
    tab.sendWhenAttached("Page.navigateToHistoryEntry", { entryId: entry.id }, budget).catch((error: unknown) => {
      if (protocolFailureOf(error) !== "no-history-entry") throw error;
      // A navigation between the two commands dropped the entry (the pages after the one shown go with a new page).
      throw new HubError("PAGE_NAVIGATED", `the tab navigated before it could go ${how.step}; call tabs.${how.step} again`);
    });
  const arrived = async (): Promise<boolean> => {
    const now = await tab.sendWhenAttached("Page.getNavigationHistory", undefined, budget);
    return now.entries[now.currentIndex]?.id === entry.id;
  };
  await followNavigation(tab, { start, arrived, url: entry.url, waitUntil: how.waitUntil }, budget);
}

/** Reloads the tab's page (a load still pending is given up for it) and waits as navigate does. */
export async function reloadTab(tab: TabSession, how: { waitUntil: WaitUntil }, budget: Budget): Promise<void> {
  const { currentIndex, entries } = await tab.sendWhenAttached("Page.getNavigationHistory", undefined, budget);
  const start = (): Promise<unknown> => tab.sendWhenAttached("Page.reload", {}, budget);
  // A reload is never restored from the back/forward cache: an end without a commit is a failure.
  const arrived = (): Promise<boolean> => Promise.resolve(false);
  await followNavigation(tab, { start, arrived, url: entries[currentIndex]?.url ?? "the page", waitUntil: how.waitUntil }, budget);
}

/** What a navigation the hub did not start with Page.navigate did, as the main frame's events tell. */
interface Followed {
  /** The navigation's loader, from its start; null until it started. */
  loaderId: string | null;
  sameDocument: boolean;
  /** The main frame's first commit since: its loader, its error page's unreachable URL, whether the back/forward cache restored it. */
  commit: { loaderId: string; unreachableUrl?: string; restored: boolean } | null;
  /** Loaders that reached the milestone waited for. */
  reached: Set<string>;
  /** The main frame stopped loading after the navigation began, or a same-document one arrived. */
  settled: boolean;
}

type Outcome = "done" | "waiting" | "ended" | { failed: string };

// How long a move the history shows done is waited for to announce its commit.
const COMMIT_WAIT_MS = 1_000;

const ENDED_WITHOUT_PAGE = "the page: the load ended without a page (a download, an empty answer, or a stop)";

/**
 * Starts a navigation with `start` and waits for it: its start (`none`), its document's milestone, a same-document
 * move, or a page the back/forward cache restored (which fires no load event). A commit of Chrome's error page, or an
 * end without any document (a download, an empty answer, a stop) unless `arrived` finds the tab where it was going, is
 * NAVIGATION_FAILED; the budget's end is TIMEOUT naming `url`, as navigate's is.
 */
async function followNavigation(
  tab: TabSession,
  how: { start: () => Promise<unknown>; arrived: () => Promise<boolean>; url: string; waitUntil: WaitUntil },
  budget: Budget,
): Promise<void> {
  const milestone = how.waitUntil === "none" ? null : LIFECYCLE_NAME[how.waitUntil];
  const state: Followed = { loaderId: null, sameDocument: false, commit: null, reached: new Set(), settled: false };
  let check = (): void => {};
  let onCommit = (): void => {};
  const committed = new Promise<void>((resolve) => (onCommit = resolve));
  const settled = new Promise<"done" | "ended">((resolve, reject) => {
    check = () => {
      if (state.commit) onCommit();
      const outcome = outcomeOf(state, milestone);
      if (outcome === "done" || outcome === "ended") resolve(outcome);
      else if (outcome !== "waiting") reject(navigationFailed(outcome.failed));
    };
  });
  // Listen before starting: Chrome announces the navigation before it answers the command that started it.
  const stops = listenToMainFrame(tab, state, { milestone, changed: () => check() });
  try {
    await how.start();
    if ((await untilReached(tab, settled, budget)) === "done") return;
    // Chrome announces the commit of a page the back/forward cache restores some milliseconds after the frame's stop:
    // the history says whether the tab got there, and the commit is waited for so that the next call runs after it.
    if (outcomeOf(state, milestone) === "done") return;
    if (!(await how.arrived())) throw navigationFailed(ENDED_WITHOUT_PAGE);
    await withinMs(committed, Math.min(COMMIT_WAIT_MS, budget.remainingMs()));
  } catch (error) {
    throw error === budget.reason && budget.isTimedOut ? loadTimedOut(tab, how, budget) : error;
  } finally {
    for (const stop of stops) stop();
  }
}

/** Done, still waiting, ended without a commit (so far), or failed (what did not load, and why). */
function outcomeOf(state: Followed, milestone: string | null): Outcome {
  const { loaderId, commit } = state;
  if (loaderId === null) return "waiting";
  if (milestone === null || (state.sameDocument && state.settled)) return "done";
  if (commit?.unreachableUrl !== undefined) return { failed: `${shortUrl(commit.unreachableUrl)}: Chrome shows its error page` };
  if (commit && (commit.restored || state.reached.has(commit.loaderId) || state.settled)) return "done";
  return state.settled ? "ended" : "waiting";
}

/** Resolves when `promise` does or after `ms`, whichever comes first. */
async function withinMs(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function navigationFailed(what: string): HubError {
  return new HubError("NAVIGATION_FAILED", `cannot load ${what}`);
}

function listenToMainFrame(tab: TabSession, state: Followed, watch: { milestone: string | null; changed: () => void }): (() => void)[] {
  const { milestone, changed } = watch;
  const main = (frameId: string): boolean => frameId === tab.tabId;
  return [
    tab.listen("Page.frameStartedNavigating", (event) => {
      if (!main(event.frameId) || state.loaderId !== null) return;
      state.loaderId = event.loaderId;
      state.sameDocument = event.navigationType === "historySameDocument" || event.navigationType === "sameDocument";
      changed();
    }),
    tab.listen("Page.frameNavigated", (event) => {
      if (event.frame.parentId !== undefined || state.loaderId === null || state.commit !== null) return;
      state.commit = commitOf(event);
      changed();
    }),
    tab.listen("Page.lifecycleEvent", (event) => {
      if (!main(event.frameId) || event.name !== milestone) return;
      state.reached.add(event.loaderId);
      changed();
    }),
    tab.listen("Page.navigatedWithinDocument", (event) => void (main(event.frameId) && settle(state, changed))),
    tab.listen("Page.frameStoppedLoading", (event) => void (main(event.frameId) && settle(state, changed))),
  ];
}

function settle(state: Followed, changed: () => void): void {
  if (state.loaderId === null) return;
  state.settled = true;
  changed();
}

function commitOf(event: Protocol.Page.FrameNavigatedEvent): NonNullable<Followed["commit"]> {
  const { loaderId, unreachableUrl } = event.frame;
  const restored = event.type === "BackForwardCacheRestore";
  return unreachableUrl === undefined ? { loaderId, restored } : { loaderId, unreachableUrl, restored };
}
