import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import type { TabSession } from "../cdp/tab-session.js";
import { stoppedForAnotherCall, wasTerminated } from "./hub-script.js";

// A page that paints no frames (a background tab) is checked this often after a mutation, and at most this long
// after a change no mutation shows (a style that came into effect).
const QUIET_CHECK_MS = 100;

// Runs in the page: `probe()`'s first truthy value, checked at once, then after mutations (at most once an animation
// frame) and now and then for changes no mutation shows; null at the deadline. A probe that throws at once makes the
// evaluation throw.
const WHEN_IN_PAGE = `function (probe, timeoutMs, quietMs) {
  const first = probe();
  if (first) return first;
  return new Promise((resolve) => {
    let pending = false;
    const finish = (value) => { observer.disconnect(); clearTimeout(deadline); clearInterval(quiet); resolve(value); };
    const check = () => { pending = false; const value = probe(); if (value) finish(value); };
    const soon = () => { if (pending) return; pending = true; requestAnimationFrame(check); setTimeout(() => pending && check(), quietMs); };
    const observer = new MutationObserver(soon);
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const quiet = setInterval(soon, quietMs * 2.5);
    const deadline = setTimeout(() => finish(null), timeoutMs);
  });
}`;

/** A page wait: the source of its probe (a function of no arguments), and how its answer comes back. */
export interface PageWait {
  /** A function expression, e.g. `() => document.querySelector("#a")`. */
  probe: string;
  /** How long the page waits, given what is left of the budget. */
  timeoutMs: () => number;
  /** True for a JSON value; false for a remote object in `objectGroup`. */
  returnByValue: boolean;
  objectGroup?: string;
  /** The call, named in the error when the hub stopped the wait for another call's runaway script. */
  method: string;
  /** Waits for a load the tab has pending within the whole budget (wait.for), not LOADING_WAIT_MS. */
  waitsForLoad?: boolean;
}

/**
 * Waits in the tab's page until the probe answers (or the page's deadline), in one evaluation with awaitPromise; when
 * the page navigates meanwhile, waits again in the next document, until the budget ends. A load the tab has pending
 * is waited for first (see PageWait.waitsForLoad); one still pending then is PAGE_LOADING.
 */
export async function waitInPage(tab: TabSession, wait: PageWait, budget: Budget): Promise<Protocol.Runtime.EvaluateResponse> {
  for (;;) {
    const terminationsBefore = tab.terminations;
    try {
      // Waits for a load the tab has pending before it starts, so that the page's deadline is computed from what is left.
      await tab.untilLoaded({ budget, ...(wait.waitsForLoad ? { loadingWaitMs: budget.remainingMs() } : {}) });
      const expression = `(${WHEN_IN_PAGE})(${wait.probe}, ${wait.timeoutMs()}, ${QUIET_CHECK_MS})`;
      return await tab.send(
        "Runtime.evaluate",
        {
          expression,
          awaitPromise: true,
          returnByValue: wait.returnByValue,
          ...(wait.objectGroup ? { objectGroup: wait.objectGroup } : {}),
        },
        { budget },
      );
    } catch (error) {
      if (budget.isOver) throw error;
      // The hub stopped another call's runaway script, and the wait's own with it.
      if (wasTerminated(error, tab.terminations > terminationsBefore)) throw stoppedForAnotherCall(wait.method);
      // The page navigated: what is waited for may come in the new document; wait there once it has a context.
      if (!isContextGone(error)) throw error;
      await nextDocument(tab, budget);
    }
  }
}

function nextDocument(tab: TabSession, budget: Budget): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = tab.listen("Runtime.executionContextCreated", () => done());
    const timer = setTimeout(() => done(), QUIET_CHECK_MS);
    const unwatch = budget.onEnd(() => done());
    function done(): void {
      stop();
      clearTimeout(timer);
      unwatch();
      resolve();
    }
  });
}
