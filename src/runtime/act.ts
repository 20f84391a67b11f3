import type { Budget } from "../budget.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import { actionPoint, type ActionChecks, type Point } from "./actionable.js";
import { watchAction, type ActionOutcome, type PageSource } from "./action-watch.js";
import type { FrameSession } from "../cdp/remote-frames.js";
import {
  elementObject,
  nodeOfReference,
  releaseObjects,
  type ElementHandle,
  type ElementReference,
  type ObjectScope,
} from "./element-object.js";
import { nextObjectGroup } from "./guarded-call.js";
import { ChangeWatch, type PageChanges } from "./page-changes.js";
import { elementOfSelector } from "./selector-element.js";
import { stoppedForAnotherCall, wasTerminated } from "./hub-script.js";

/** An element an action is given: a snapshot ref, a CSS selector, or a point of the viewport (CSS pixels). */
export type ElementSpec = ElementReference | Point;

/** The element keys of an action's params (flat: `ref`, or `selector`, or `x` and `y`). */
export interface ElementKeys {
  ref?: string;
  selector?: string;
  x?: number;
  y?: number;
}

/** The one element the keys name, or null when none is given; INVALID_PARAMS for two, or for x without y. */
export function elementOf(keys: ElementKeys, method: string, path = ""): ElementSpec | null {
  const given = (["ref", "selector", "x", "y"] as const).filter((name) => keys[name] !== undefined);
  const invalid = (message: string): HubError =>
    new HubError("INVALID_PARAMS", `invalid params for ${method}: ${message}`, {
      errors: [{ path: `${path}/${given[0] ?? "ref"}`, message }],
    });
  if (keys.ref !== undefined && given.length === 1) return { ref: keys.ref };
  if (keys.selector !== undefined && given.length === 1) return { selector: keys.selector };
  if (keys.x !== undefined && keys.y !== undefined && given.length === 2) return { x: keys.x, y: keys.y };
  if (given.length === 0) return null;
  if (given.length === 1) throw invalid("give x and y together");
  throw invalid(`give one element: ref, or selector, or x and y; not ${given.join(" and ")}`);
}

/** The element an action needs, or INVALID_PARAMS saying how to name one. */
export function requiredElementOf(keys: ElementKeys, method: string, path = ""): ElementSpec {
  const element = elementOf(keys, method, path);
  if (element) return element;
  throw new HubError("INVALID_PARAMS", `invalid params for ${method}: name the element by ref, selector, or x and y`, {
    errors: [{ path: `${path}/ref`, message: "give ref, selector, or x and y" }],
  });
}

/** The element an action needs as a node (ref or selector, not a point), or INVALID_PARAMS saying so. */
export function referencedElementOf(keys: ElementKeys, method: string, path = ""): ElementReference {
  const element = requiredElementOf(keys, method, path);
  if (!("x" in element)) return element;
  throw new HubError("INVALID_PARAMS", `invalid params for ${method}: name the element by ref or selector, not by a point`, {
    errors: [{ path: `${path}/x`, message: `${method} takes ref or selector` }],
  });
}

/** What an action runs with: its tab, its remote objects' scope, and how to find an element's point. */
export class ActionScope implements ObjectScope {
  readonly tab: TabSession;
  readonly budget: Budget;
  readonly objectGroup = nextObjectGroup();
  readonly remoteSessions = new Set<FrameSession>();
  readonly method: string;

  constructor(tab: TabSession, budget: Budget, method: string) {
    this.tab = tab;
    this.budget = budget;
    this.method = method;
  }

  /** The remote object of a referenced element: a selector's first match, waited for; a ref's node (NODE_NOT_FOUND at once when stale). */
  object(element: ElementReference): Promise<ElementHandle> {
    if ("selector" in element) return elementOfSelector(this, element.selector, this.method);
    return elementObject(this, nodeOfReference(this.tab, element), { method: this.method, use: "actionable" });
  }

  /** Calls one of the hub's page functions on an element and returns its value. */
  async callFunction<T>(element: ElementHandle, functionDeclaration: string, args: readonly unknown[]): Promise<T> {
    const { result, exceptionDetails } = await element.session.send(
      "Runtime.callFunctionOn",
      {
        functionDeclaration,
        objectId: element.objectId,
        arguments: args.map((value) => ({ value })),
        returnByValue: true,
        userGesture: true,
      },
      { budget: this.budget },
    );
    if (exceptionDetails) {
      throw new Error(`a function of the hub failed in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    }
    return result.value as T;
  }

  /** Evaluates one of the hub's expressions in the page and returns its value. */
  async evaluate<T>(expression: string): Promise<T> {
    const { result } = await this.tab.send("Runtime.evaluate", { expression, returnByValue: true }, { budget: this.budget });
    return result.value as T;
  }

  /** Where to act on the element, once it is actionable; a point is taken as it is. */
  async point(element: ElementSpec, checks: ActionChecks): Promise<Point> {
    if ("x" in element) return element;
    return actionPoint(this, await this.object(element), checks);
  }
}

/** How an action runs: its budget, where new pages are announced, its method, and whether to answer the page's changes. */
export interface ActionContext {
  budget: Budget;
  pages: PageSource;
  method: string;
  changes: "diff" | "none";
}

/**
 * Runs the action with its page watched, and adds what it changed. The read of the changes is the round trip after
 * the input that lets a navigation the input requested arrive (see watchAction); when the document was replaced after
 * it, what it read is of the old page, and the new page's URL and title are read instead.
 */
async function withChanges(
  tab: TabSession,
  context: ActionContext & { watch: ChangeWatch },
  act: () => Promise<void>,
): Promise<ActionOutcome> {
  const { watch, budget } = context;
  const early: { taken: boolean; changes?: PageChanges } = { taken: false };
  let isReplaced = false;
  const stopWatching = tab.onNavigated(() => (isReplaced = true));
  let outcome: ActionOutcome;
  try {
    const afterInput = async (): Promise<void> => {
      const changes = await watch.take(budget, { dialogOpen: false });
      Object.assign(early, { taken: true, ...(changes ? { changes } : {}) });
    };
    outcome = await watchAction(tab, { ...context, afterInput }, act);
  } finally {
    stopWatching();
  }
  const dialogOpen = outcome.dialog !== undefined && tab.dialogPolicy === "manual";
  const changes = early.taken && !isReplaced ? early.changes : await watch.take(budget, { dialogOpen });
  return changes ? { ...outcome, changes } : outcome;
}

/**
 * Runs an action on a tab: the element lookups and input of `act`, what it set off (navigation, opened pages, a
 * dialog) and what it changed on the page, its remote objects released afterwards, and a page that went away
 * mid-action as PAGE_NAVIGATED.
 */
export async function runAction(
  tab: TabSession,
  context: ActionContext,
  act: (scope: ActionScope) => Promise<void>,
): Promise<ActionOutcome> {
  const scope = new ActionScope(tab, context.budget, context.method);
  const terminationsBefore = tab.terminations;
  try {
    const watch = context.changes === "none" ? null : await ChangeWatch.arm(tab, context.budget);
    if (!watch) return await watchAction(tab, context, () => act(scope));
    return await withChanges(tab, { ...context, watch }, () => act(scope));
  } catch (error) {
    if (isContextGone(error)) {
      throw new HubError("PAGE_NAVIGATED", `the page navigated or reloaded during ${context.method}; take a new snapshot and act again`);
    }
    // The hub stopped the page's script for another call's runaway one, and the action's own page function with it
    // (an awaited one answers Chrome's "Internal error": it counts when the hub stopped a script on the tab meanwhile).
    if (wasTerminated(error, tab.terminations > terminationsBefore)) throw stoppedForAnotherCall(context.method);
    throw error;
  } finally {
    releaseObjects(scope);
  }
}
