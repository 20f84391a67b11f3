import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { RESULT_BYTES_HARD_CAP } from "../config.js";
import { exceptionToError } from "./exception.js";
import { prepareExpression } from "./expression.js";
import { guardedCall, nextObjectGroup } from "./guarded-call.js";
import { applyMaxSize, asSerializationError, readResult, type EvaluateResult } from "./remote-value.js";

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
      if (response.exceptionDetails) throw exceptionToError(response.exceptionDetails, prepared.columnOffset);
      const maxBytes = options.maxSize ?? RESULT_BYTES_HARD_CAP;
      const context = { session: tab, budget, objectGroup, awaitPromise: options.awaitPromise, args: options.args, maxBytes };
      return applyMaxSize(await readResult(context, response.result), maxBytes);
    } finally {
      if (holdsObjects) {
        tab.send("Runtime.releaseObjectGroup", { objectGroup }, { timeoutMs: RELEASE_TIMEOUT_MS }).catch(() => {});
      }
    }
  });
}
