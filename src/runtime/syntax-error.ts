import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import type { HubError } from "../errors.js";
import { exceptionToError } from "./exception.js";
import type { PreparedExpression } from "./expression.js";

/** What a failed evaluate was: the caller's code, how the hub wrapped it, and the exception Chrome reported. */
export interface FailedEvaluation {
  code: string;
  prepared: PreparedExpression;
  details: Protocol.Runtime.ExceptionDetails;
}

// Code that awaits is compiled as the body of an async function, where await is valid as it is in REPL mode; the
// function is never closed, so an unfinished body meets the end of the input as it would on its own.
const ASYNC_PREFIX = "async function tabwire(){";
const RELEASE_TIMEOUT_MS = 1_000;

/**
 * The evaluation's error, a syntax error as the caller's code's own: the braces the hub puts around code turn an
 * unfinished `1+` into "Unexpected token '}'", so code that did not parse is compiled again on its own (never run)
 * for its own message and position.
 */
export async function evaluationError(tab: TabSession, failed: FailedEvaluation, budget: Budget): Promise<HubError> {
  const { code, prepared, details } = failed;
  const wrapped = exceptionToError(details, prepared.columnOffset);
  if (!prepared.isBlock || details.exception?.className !== "SyntaxError") return wrapped;
  const own = await compiledAlone(tab, prepared.replMode ? `${ASYNC_PREFIX}${code}` : code, budget);
  // Code that compiles on its own failed only in the braces (after an await, a stray `}` closes the function early):
  // Chrome's message of the wrapped code stands.
  if (own === undefined || own.exception?.className !== "SyntaxError") return wrapped;
  return exceptionToError(own, prepared.replMode ? ASYNC_PREFIX.length : 0);
}

/** The exception of compiling `source` as a script of its own (nothing runs); undefined when it compiles or Chrome cannot say. */
async function compiledAlone(tab: TabSession, source: string, budget: Budget): Promise<Protocol.Runtime.ExceptionDetails | undefined> {
  try {
    const { exceptionDetails } = await tab.send(
      "Runtime.compileScript",
      { expression: source, sourceURL: "", persistScript: false },
      { budget },
    );
    const objectId = exceptionDetails?.exception?.objectId;
    if (objectId !== undefined) tab.send("Runtime.releaseObject", { objectId }, { timeoutMs: RELEASE_TIMEOUT_MS }).catch(() => {});
    return exceptionDetails;
  } catch {
    return undefined;
  }
}
