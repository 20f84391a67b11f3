import type { Budget } from "../budget.js";
import { HubError, isHubError } from "../errors.js";
import type { TabSession } from "../cdp/tab-session.js";
import { consoleLevel, consoleText, cutConsoleText } from "./console-text.js";
import type { EvaluateResult } from "./remote-value.js";
import { stoppedForAnotherCall, wasTerminated } from "./hub-script.js";
import { stopRunaway } from "./runaway-watch.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import { shortUrl, type PendingLoad } from "../cdp/pending-load.js";

type ConsoleEntry = NonNullable<EvaluateResult["console"]>[number];

const MAX_CAPTURED_MESSAGES = 1_000;

let groupCounter = 0;

/** A fresh object group name, so one call's remote objects are released without touching another's. */
export function nextObjectGroup(): string {
  return `tabwire-${++groupCounter}`;
}

/**
 * Runs page code on a tab under the call's budget: captures the console while it runs, turns a navigation into
 * PAGE_NAVIGATED, and past the deadline (or on cancel) stops a runaway script with Runtime.terminateExecution.
 */
export async function guardedCall(
  tab: TabSession,
  how: { budget: Budget; captureConsole: boolean },
  run: () => Promise<EvaluateResult>,
): Promise<EvaluateResult> {
  const { budget, captureConsole } = how;
  const terminationsBefore = tab.terminations;
  const captured: ConsoleEntry[] = [];
  let stopWatching = (): void => {};
  try {
    const result = await new Promise<EvaluateResult>((resolve, reject) => {
      stopWatching = tab.watchCall({
        // A navigation can leave an awaited promise pending forever in the old document, so the call fails at once.
        navigated: () => reject(pageNavigated()),
        console: captureConsole
          ? (event) => {
              if (captured.length >= MAX_CAPTURED_MESSAGES) return;
              // Cut as the console stream's are: a page logging megabytes while the call runs costs the hub kilobytes.
              const text = cutConsoleText(consoleText(event.args));
              captured.push({ level: consoleLevel(event.type), text, timestamp: event.timestamp });
            }
          : undefined,
      });
      run().then(resolve, reject);
    });
    if (captured.length > 0) result.console = captured;
    return result;
  } catch (error) {
    const failure = await explainFailure(tab, error, { budget, stoppedMeanwhile: tab.terminations > terminationsBefore });
    // A navigation during the call: its script may still be queued, and one that spins would hang the new page.
    if (isHubError(failure, "PAGE_NAVIGATED")) void stopRunaway(tab);
    throw failure;
  } finally {
    stopWatching();
  }
}

// What the caller is told of a failed run: TIMEOUT (with whether the script was stopped), PAGE_NAVIGATED, or the error.
async function explainFailure(tab: TabSession, error: unknown, during: { budget: Budget; stoppedMeanwhile: boolean }): Promise<unknown> {
  const { budget, stoppedMeanwhile } = during;
  if (budget.isOver && error === budget.reason) {
    if (!budget.isTimedOut) {
      void stopRunaway(tab);
      return error;
    }
    const load = tab.pendingLoad;
    if (load?.awaitingServer) return heldByLoad(load, budget);
    const terminated = await stopRunaway(tab);
    return new HubError("TIMEOUT", `the code did not finish within ${budget.timeoutMs} ms${terminated ? "; the hub stopped it" : ""}`, {
      timeoutMs: budget.timeoutMs,
      terminated,
    });
  }
  if (isHubError(error)) return error;
  if (wasTerminated(error, stoppedMeanwhile)) return stoppedForAnotherCall("the page's script");
  if (isContextGone(error)) return tab.cdp.isClosed ? tab.cdp.closedBy : pageNavigated();
  return error;
}

// The tab began a load while the code ran or waited to: Chrome runs nothing in its page (nor stops it) until the load commits.
function heldByLoad(load: PendingLoad, budget: Budget): HubError {
  const message = `the code did not finish within ${budget.timeoutMs} ms: the tab is loading ${shortUrl(load.url)}, and Chrome runs nothing in its page until that page arrives`;
  return new HubError("TIMEOUT", message, { timeoutMs: budget.timeoutMs, terminated: false });
}

function pageNavigated(): HubError {
  return new HubError("PAGE_NAVIGATED", "the page navigated or reloaded while the code ran; run it again on the new page");
}
