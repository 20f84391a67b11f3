import { ProtocolError } from "../cdp/callback-registry.js";
import { HubError } from "../errors.js";
import { protocolFailureOf } from "../cdp/protocol-errors.js";

// Each stop needs the runaway watch to find the page busy for 100 ms, so this is a page stopped again and again.
const MAX_RUNS = 10;

/**
 * Whether Chrome's answer says the script was stopped by Runtime.terminateExecution. "Internal error" counts only when
 * the hub stopped a script on the tab while the call ran (`stoppedMeanwhile`).
 */
export function wasTerminated(error: unknown, stoppedMeanwhile: boolean): boolean {
  if (!(error instanceof ProtocolError)) return false;
  // Chrome says "Execution was terminated" without awaitPromise, and "Internal error" (which others share) with it.
  const failure = protocolFailureOf(error);
  return failure === "terminated" || (stoppedMeanwhile && failure === "internal-error");
}

/** The answer for a call whose script the hub stopped for another call's sake (docs/protocol.md: TerminatedError). */
export function stoppedForAnotherCall(what: string): HubError {
  const why = `${what} was stopped before it finished: another call on this tab ran past its budget or was cancelled, and the hub stopped the script running then; run it again`;
  return new HubError("EVALUATION_FAILED", why, { name: "TerminatedError", message: why });
}

/**
 * Runs one of the hub's own short page scripts (screenshot's measuring, content's read) and runs it again when it was
 * stopped. Runtime.terminateExecution stops whatever runs on the page at that moment, so when the hub stops another
 * call's runaway script it may hit a hub script instead. `run` waits on the call's budget, as each retry does.
 */
export async function runHubScript<T>(what: string, run: () => Promise<T>): Promise<T> {
  for (let runs = 1; ; runs++) {
    try {
      return await run();
    } catch (error) {
      if (!wasTerminated(error, false)) throw error;
      if (runs >= MAX_RUNS) throw stoppedForAnotherCall(what);
    }
  }
}
