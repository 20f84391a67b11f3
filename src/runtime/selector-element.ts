import { notActionable } from "./actionable.js";
import { invalidSelector, type ElementHandle, type ObjectScope } from "./element-object.js";
import { waitInPage } from "./page-wait.js";

// Leaves the hub this much of the budget to answer TIMEOUT itself once the page gives up waiting.
const ANSWER_MARGIN_MS = 100;

/**
 * The first element of the top document that matches an action's selector, waited for within the call's budget as
 * Playwright's actions wait (in the new document when the page navigates meanwhile); TIMEOUT with `data.reason`
 * "not found" when none came.
 */
export async function elementOfSelector(scope: ObjectScope, selector: string, method: string): Promise<ElementHandle> {
  const { tab, budget } = scope;
  const wait = {
    probe: `() => document.querySelector(${JSON.stringify(selector)})`,
    timeoutMs: () => Math.max(0, budget.remainingMs() - ANSWER_MARGIN_MS),
    returnByValue: false,
    objectGroup: scope.objectGroup,
    method,
  };
  const notFound = () =>
    notActionable(
      budget,
      "not found",
      `no element matched the selector ${JSON.stringify(selector)} within ${budget.timeoutMs} ms; check it, or take a snapshot and use a ref`,
    );
  const { result, exceptionDetails } = await waitInPage(tab, wait, budget).catch((error: unknown) => {
    // The budget ran out between documents, or before the page answered: what was waited for is the element.
    throw budget.isTimedOut ? notFound() : error;
  });
  if (exceptionDetails) throw invalidSelector(method, selector);
  if (!result.objectId) throw notFound();
  return { objectId: result.objectId, session: tab };
}
