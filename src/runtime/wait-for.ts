import type { Budget } from "../budget.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import type { RegexCaller } from "./regex-worker.js";
import { urlMatcher } from "./url-matcher.js";
import { stoppedForAnotherCall, wasTerminated } from "./hub-script.js";

/** One condition of `wait.for`. */
export type WaitCondition =
  | { text: string }
  | { textGone: string }
  | { selector: string; state: "attached" | "visible" | "hidden" | "detached" }
  | { url: string }
  | { loadState: "domcontentloaded" | "load" | "networkidle" };

// Answers ahead of the budget, so that a condition that never holds is the hub's TIMEOUT with its own message.
const ANSWER_MARGIN_MS = 50;
// A page that paints no frames (a background tab) is checked this often after a mutation, and at most this long
// after a change no mutation shows (a style that came into effect).
const QUIET_CHECK_MS = 100;

// Runs in the page: true as soon as the condition holds (checked at once, then after mutations, at most once an
// animation frame), false at the deadline. A selector that is not valid CSS throws.
const WAIT_IN_PAGE = `function (condition, timeoutMs, quietMs) {
  const visibleText = () => (document.body ? document.body.innerText : "");
  const isVisible = (el) => { if (!el || !el.checkVisibility()) return false; const box = el.getBoundingClientRect(); return box.width > 0 && box.height > 0; };
  const holds = () => {
    if ("text" in condition) return visibleText().includes(condition.text);
    if ("textGone" in condition) return !visibleText().includes(condition.textGone);
    const el = document.querySelector(condition.selector);
    if (condition.state === "attached") return el !== null;
    if (condition.state === "detached") return el === null;
    return condition.state === "visible" ? isVisible(el) : !isVisible(el);
  };
  if (holds()) return true;
  return new Promise((resolve) => {
    let pending = false;
    const finish = (value) => { observer.disconnect(); clearTimeout(deadline); clearInterval(quiet); resolve(value); };
    const check = () => { pending = false; if (holds()) finish(true); };
    const soon = () => { if (pending) return; pending = true; requestAnimationFrame(check); setTimeout(() => pending && check(), quietMs); };
    const observer = new MutationObserver(soon);
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const quiet = setInterval(soon, quietMs * 2.5);
    const deadline = setTimeout(() => finish(false), timeoutMs);
  });
}`;

/** Waits until the condition holds on the tab, within the caller's budget; answers how long it waited. */
export async function waitFor(tab: TabSession, condition: WaitCondition, caller: RegexCaller): Promise<number> {
  const started = performance.now();
  const { budget } = caller;
  if ("url" in condition) await waitForUrl(tab, urlMatcher(condition.url, caller), budget);
  else if ("loadState" in condition) await waitForLoadState(tab, condition.loadState, budget);
  else await waitInPage(tab, condition, budget);
  return Math.round((performance.now() - started) * 10) / 10;
}

async function waitInPage(tab: TabSession, condition: WaitCondition, budget: Budget): Promise<void> {
  for (;;) {
    const timeoutMs = Math.max(0, budget.remainingMs() - ANSWER_MARGIN_MS);
    const terminationsBefore = tab.terminations;
    try {
      const { result, exceptionDetails } = await tab.send(
        "Runtime.evaluate",
        {
          expression: `(${WAIT_IN_PAGE})(${JSON.stringify(condition)}, ${timeoutMs}, ${QUIET_CHECK_MS})`,
          awaitPromise: true,
          returnByValue: true,
        },
        { budget },
      );
      if (exceptionDetails && "selector" in condition) {
        throw new HubError(
          "INVALID_PARAMS",
          `invalid params for wait.for: ${JSON.stringify(condition.selector)} is not a valid CSS selector`,
          {
            errors: [{ path: "/selector", message: "is not a valid CSS selector" }],
          },
        );
      }
      if (exceptionDetails) throw new Error(`wait.for failed in the page: ${exceptionDetails.text}`);
      if (result.value === true) return;
      throw timedOut(budget, describe(condition));
    } catch (error) {
      if (budget.isOver) throw error;
      // The hub stopped another call's runaway script, and the wait's own with it.
      if (wasTerminated(error, tab.terminations > terminationsBefore)) throw stoppedForAnotherCall("wait.for");
      // The page navigated: the condition may hold in the new document; wait there once it has a context.
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

async function waitForUrl(tab: TabSession, matches: (url: string) => Promise<boolean>, budget: Budget): Promise<void> {
  const reached = new Promise<void>((resolve, reject) => {
    // A regular expression that searches too long, or one past its client's share of the thread, refuses the call
    // (regex-worker.ts).
    const check = (url: string): void => void matches(url).then((matched) => matched && resolve(), reject);
    const stops = [
      tab.listen(
        "Page.frameNavigated",
        (event) => event.frame.parentId === undefined && check(event.frame.url + (event.frame.urlFragment ?? "")),
      ),
      tab.listen("Page.navigatedWithinDocument", (event) => event.frameId === tab.tabId && check(event.url)),
    ];
    budget.defer(() => stops.forEach((stop) => stop()));
    void tab.send("Target.getTargetInfo", {}, { budget }).then(
      ({ targetInfo }) => check(targetInfo.url),
      () => {},
    );
  });
  await budget.race(reached).catch((error: unknown) => {
    throw budget.isTimedOut ? timedOut(budget, "the URL to match") : error;
  });
}

async function waitForLoadState(tab: TabSession, state: "domcontentloaded" | "load" | "networkidle", budget: Budget): Promise<void> {
  const name = { domcontentloaded: "DOMContentLoaded", load: "load", networkidle: "networkIdle" }[state];
  const reached = tab.lifecycleReached(name, budget);
  await budget.race(reached).catch((error: unknown) => {
    throw budget.isTimedOut ? timedOut(budget, `the ${state} state`) : error;
  });
}

function describe(condition: WaitCondition): string {
  if ("text" in condition) return `the text ${JSON.stringify(condition.text)}`;
  if ("textGone" in condition) return `the text ${JSON.stringify(condition.textGone)} to go`;
  if ("selector" in condition) return `${JSON.stringify(condition.selector)} to be ${condition.state}`;
  return "the condition";
}

function timedOut(budget: Budget, what: string): HubError {
  return new HubError("TIMEOUT", `waited ${budget.timeoutMs} ms for ${what}; it did not come`, {
    timeoutMs: budget.timeoutMs,
    terminated: false,
  });
}
