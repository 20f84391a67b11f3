import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import type { RegexCaller } from "./regex-worker.js";
import { urlMatcher } from "./url-matcher.js";
import { waitInPage } from "./page-wait.js";
import { invalidSelector } from "./element-object.js";

/** One condition of `wait.for`. */
export type WaitCondition =
  | { text: string }
  | { textGone: string }
  | { selector: string; state: "attached" | "visible" | "hidden" | "detached" }
  | { url: string }
  | { loadState: "domcontentloaded" | "load" | "networkidle" };

// Answers ahead of the budget, so that a condition that never holds is the hub's TIMEOUT with its own message.
const ANSWER_MARGIN_MS = 50;

// Runs in the page: whether the condition holds. A selector that is not valid CSS throws.
const HOLDS = `function (condition) {
  const visibleText = () => (document.body ? document.body.innerText : "");
  const isVisible = (el) => { if (!el || !el.checkVisibility()) return false; const box = el.getBoundingClientRect(); return box.width > 0 && box.height > 0; };
  if ("text" in condition) return visibleText().includes(condition.text);
  if ("textGone" in condition) return !visibleText().includes(condition.textGone);
  const el = document.querySelector(condition.selector);
  if (condition.state === "attached") return el !== null;
  if (condition.state === "detached") return el === null;
  return condition.state === "visible" ? isVisible(el) : !isVisible(el);
}`;

/** Waits until the condition holds on the tab, within the caller's budget; answers how long it waited. */
export async function waitFor(tab: TabSession, condition: WaitCondition, caller: RegexCaller): Promise<number> {
  const started = performance.now();
  const { budget } = caller;
  if ("url" in condition) await waitForUrl(tab, urlMatcher(condition.url, caller), budget);
  else if ("loadState" in condition) await waitForLoadState(tab, condition.loadState, budget);
  else await waitForPage(tab, condition, budget);
  return Math.round((performance.now() - started) * 10) / 10;
}

async function waitForPage(tab: TabSession, condition: WaitCondition, budget: Budget): Promise<void> {
  const probe = `() => (${HOLDS})(${JSON.stringify(condition)})`;
  const timeoutMs = (): number => Math.max(0, budget.remainingMs() - ANSWER_MARGIN_MS);
  const { result, exceptionDetails } = await waitInPage(
    tab,
    { probe, timeoutMs, returnByValue: true, method: "wait.for", waitsForLoad: true },
    budget,
  );
  if (exceptionDetails && "selector" in condition) throw invalidSelector("wait.for", condition.selector);
  if (exceptionDetails) throw new Error(`wait.for failed in the page: ${exceptionDetails.text}`);
  if (result.value !== true) throw timedOut(budget, describe(condition));
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
