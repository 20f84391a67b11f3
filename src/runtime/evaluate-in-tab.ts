import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { RESULT_BYTES_HARD_CAP } from "../config.js";
import { exceptionToError } from "./exception.js";
import { prepareExpression } from "./expression.js";
import { evaluationError } from "./syntax-error.js";
import { guardedCall, nextObjectGroup } from "./guarded-call.js";
import { applyMaxSize, asSerializationError, primitiveValue, readResult, type EvaluateResult } from "./remote-value.js";

/** The params of `evaluate` once validated and defaulted. */
export interface EvaluateOptions {
  expression: string;
  awaitPromise: boolean;
  isolate: boolean;
  args: readonly unknown[];
  /** The most bytes of JSON the value may have (the method gives MAX_RESULT_BYTES when the caller gave none). */
  maxSize?: number;
  captureConsole: boolean;
}

const RELEASE_TIMEOUT_MS = 1_000;

/** Evaluates code in the tab's page with a user gesture, in one CDP round trip when the result is a primitive. */
export function evaluateInTab(tab: TabSession, options: EvaluateOptions, budget: Budget): Promise<EvaluateResult> {
  const prepared = prepareExpression(options.expression, options.isolate);
  const objectGroup = nextObjectGroup();
  return guardedCall(tab, { budget, captureConsole: options.captureConsole }, async () => {
    let holdsObjects = false;
    try {
      const response = await tab
        .send(
          "Runtime.evaluate",
          {
            expression: prepared.expression,
            awaitPromise: options.awaitPromise,
            userGesture: true,
            objectGroup,
            ...(prepared.replMode ? { replMode: true } : {}),
          },
          { budget },
        )
        .catch((error: unknown) => Promise.reject(asSerializationError(error)));
      holdsObjects = response.result.objectId !== undefined || response.exceptionDetails !== undefined;
      if (response.exceptionDetails)
        throw await evaluationError(tab, { code: options.expression, prepared, details: response.exceptionDetails }, budget);
      const maxBytes = options.maxSize ?? RESULT_BYTES_HARD_CAP;
      // A primitive (most values code returns) is the answer as it came: no step more on the hot path.
      if (!response.result.objectId) return applyMaxSize(primitiveValue(response.result), maxBytes);
      const value = options.awaitPromise
        ? await settled(tab, response.result, { budget, columnOffset: prepared.columnOffset })
        : response.result;
      const context = { session: tab, budget, objectGroup, awaitPromise: options.awaitPromise, args: options.args, maxBytes };
      return applyMaxSize(await readResult(context, value), maxBytes);
    } finally {
      if (holdsObjects) {
        tab.send("Runtime.releaseObjectGroup", { objectGroup }, { timeoutMs: RELEASE_TIMEOUT_MS }).catch(() => {});
      }
    }
  });
}

/**
 * The value a promise settles to; any other value as it is. Code that awaits runs in REPL mode, whose completion value
 * Chrome awaits but does not unwrap: `(async () => { await 0; return 4; })()` completes with the promise itself.
 */
async function settled(
  tab: TabSession,
  remote: Protocol.Runtime.RemoteObject,
  options: { budget: Budget; columnOffset: number },
): Promise<Protocol.Runtime.RemoteObject> {
  if (remote.subtype !== "promise" || remote.objectId === undefined) return remote;
  // The settled value joins the promise's object group, so it is released with the call's.
  const awaited = await tab.send("Runtime.awaitPromise", { promiseObjectId: remote.objectId }, { budget: options.budget });
  if (awaited.exceptionDetails) throw exceptionToError(awaited.exceptionDetails, options.columnOffset);
  return awaited.result;
}
