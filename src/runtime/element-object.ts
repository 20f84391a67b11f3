import type { TabSession } from "../cdp/tab-session.js";
import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import { refTableOf } from "./ref-registry.js";

/** An element named by a snapshot ref, a CSS selector or Chrome's backendNodeId. */
export type ElementReference = { ref: string } | { selector: string } | { backendNodeId: number };

/** Where remote objects of a call live: its tab, budget and object group (released when the call ends). */
export interface ObjectScope {
  tab: TabSession;
  budget: Budget;
  objectGroup: string;
}

const IS_CONNECTED = "function () { return this.isConnected; }";

/** The node a ref names, checked before anything runs in the page (NODE_NOT_FOUND for a stale or unknown ref). */
export function nodeOfReference(
  tab: TabSession,
  element: ElementReference,
): { backendNodeId: number; label: string } | { selector: string } {
  if ("selector" in element) return element;
  if ("ref" in element) return { backendNodeId: refTableOf(tab).backendNodeId(element.ref), label: `ref ${element.ref}` };
  return { backendNodeId: element.backendNodeId, label: `backendNodeId ${element.backendNodeId}` };
}

/** The remote object of an element: the first match of a selector, or a node still in its document. */
export function elementObject(scope: ObjectScope, node: ReturnType<typeof nodeOfReference>, method: string): Promise<string> {
  return "selector" in node ? firstMatch(scope, node.selector, method) : connectedNode(scope, node);
}

async function firstMatch(scope: ObjectScope, selector: string, method: string): Promise<string> {
  const { result, exceptionDetails } = await scope.tab.send(
    "Runtime.evaluate",
    { expression: `document.querySelector(${JSON.stringify(selector)})`, objectGroup: scope.objectGroup },
    { budget: scope.budget },
  );
  if (exceptionDetails) {
    const problem = { path: "/selector", message: "is not a valid CSS selector" };
    throw new HubError("INVALID_PARAMS", `invalid params for ${method}: ${JSON.stringify(selector)} is not a valid CSS selector`, {
      errors: [problem],
    });
  }
  if (!result.objectId) {
    throw new HubError(
      "NODE_NOT_FOUND",
      `no element matches the selector ${JSON.stringify(selector)}; check it, or take a snapshot and use a ref`,
    );
  }
  return result.objectId;
}

async function connectedNode(scope: ObjectScope, node: { backendNodeId: number; label: string }): Promise<string> {
  const gone = (): HubError =>
    new HubError(
      "NODE_NOT_FOUND",
      `${node.label} is no longer in the page (removed, or the page changed); take a new snapshot and use its refs`,
    );
  const { object } = await scope.tab
    .send("DOM.resolveNode", { backendNodeId: node.backendNodeId, objectGroup: scope.objectGroup }, { budget: scope.budget })
    .catch((error: unknown) =>
      Promise.reject(/No node with given id found|does not belong to the document/.test(String(error)) ? gone() : error),
    );
  if (!object.objectId) throw gone();
  // A node that was removed but is still alive resolves; acting on it would silently do nothing.
  const connected = await scope.tab.send(
    "Runtime.callFunctionOn",
    { functionDeclaration: IS_CONNECTED, objectId: object.objectId, returnByValue: true },
    { budget: scope.budget },
  );
  if (connected.result.value !== true) throw gone();
  return object.objectId;
}
