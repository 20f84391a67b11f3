import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { RESULT_BYTES_HARD_CAP } from "../config.js";
import { HubError } from "../errors.js";
import { exceptionToError } from "./exception.js";
import { guardedCall, nextObjectGroup } from "./guarded-call.js";
import { refTableOf } from "./ref-registry.js";
import { applyMaxSize, readValue, type EvaluateResult } from "./remote-value.js";

/** The element a callOn runs on: a snapshot ref, a CSS selector, a backendNodeId, or none (the page's global object). */
export type ElementTarget = { ref: string } | { selector: string } | { backendNodeId: number } | null;

/** The params of `callOn` once validated and defaulted, with the one element reference picked out. */
export interface CallOnOptions {
  functionDeclaration: string;
  element: ElementTarget;
  args: readonly unknown[];
  awaitPromise: boolean;
  /** The most bytes of JSON the value may have (the method gives MAX_RESULT_BYTES when the caller gave none). */
  maxSize?: number;
  captureConsole: boolean;
}

/** Where the function runs: the remote object that is `this`, and whether it is also passed as the first argument. */
interface Receiver {
  objectId: string;
  isElement: boolean;
}

interface Scope {
  tab: TabSession;
  budget: Budget;
  objectGroup: string;
}

interface NodeTarget {
  backendNodeId: number;
  label: string;
}

const RELEASE_TIMEOUT_MS = 1_000;
const IS_CONNECTED = "function () { return this.isConnected; }";
// Chrome compiles the declaration as `(<declaration>)`, so positions on its first line are one column to the right.
const DECLARATION_COLUMN_OFFSET = 1;

/** Calls a function with the element as `this` and first argument (or on the page's global object), like evaluate. */
export function callOnElement(tab: TabSession, options: CallOnOptions, budget: Budget): Promise<EvaluateResult> {
  // A stale or unknown ref fails before anything runs in the page.
  const element = toResolvable(tab, options.element);
  const scope: Scope = { tab, budget, objectGroup: nextObjectGroup() };
  return guardedCall(tab, { budget, captureConsole: options.captureConsole }, async () => {
    try {
      const receiver = element === null ? await globalObject(scope) : await resolveElement(scope, element);
      const response = await callDeclaration(scope, receiver, options);
      if (response.exceptionDetails) throw exceptionToError(response.exceptionDetails, DECLARATION_COLUMN_OFFSET);
      const maxBytes = options.maxSize ?? RESULT_BYTES_HARD_CAP;
      const context = { ...scope, awaitPromise: options.awaitPromise, args: options.args, maxBytes };
      return applyMaxSize(await readValue(context, response.result), maxBytes);
    } finally {
      tab.send("Runtime.releaseObjectGroup", { objectGroup: scope.objectGroup }, { timeoutMs: RELEASE_TIMEOUT_MS }).catch(() => {});
    }
  });
}

function toResolvable(tab: TabSession, element: ElementTarget): NodeTarget | { selector: string } | null {
  if (element === null || "selector" in element) return element;
  if ("ref" in element) return { backendNodeId: refTableOf(tab).backendNodeId(element.ref), label: `ref ${element.ref}` };
  return { backendNodeId: element.backendNodeId, label: `backendNodeId ${element.backendNodeId}` };
}

function resolveElement(scope: Scope, element: NodeTarget | { selector: string }): Promise<Receiver> {
  return "selector" in element ? firstMatch(scope, element.selector) : connectedNode(scope, element);
}

function callDeclaration(scope: Scope, receiver: Receiver, options: CallOnOptions): Promise<Protocol.Runtime.CallFunctionOnResponse> {
  const element = receiver.isElement ? [{ objectId: receiver.objectId }] : [];
  const params: Protocol.Runtime.CallFunctionOnRequest = {
    functionDeclaration: options.functionDeclaration,
    objectId: receiver.objectId,
    arguments: [...element, ...options.args.map((value) => ({ value }))],
    awaitPromise: options.awaitPromise,
    userGesture: true,
    objectGroup: scope.objectGroup,
  };
  return scope.tab
    .send("Runtime.callFunctionOn", params, { budget: scope.budget })
    .catch((error: unknown) => Promise.reject(asDeclarationError(error)));
}

async function globalObject(scope: Scope): Promise<Receiver> {
  // A script's top-level `this` is the global object even on a page that reassigns `globalThis`.
  const { result } = await scope.tab.send(
    "Runtime.evaluate",
    { expression: "this", objectGroup: scope.objectGroup },
    { budget: scope.budget },
  );
  if (!result.objectId) throw new Error("Runtime.evaluate of the global object gave no object");
  return { objectId: result.objectId, isElement: false };
}

async function firstMatch(scope: Scope, selector: string): Promise<Receiver> {
  const { result, exceptionDetails } = await scope.tab.send(
    "Runtime.evaluate",
    { expression: `document.querySelector(${JSON.stringify(selector)})`, objectGroup: scope.objectGroup },
    { budget: scope.budget },
  );
  if (exceptionDetails) {
    const problem = { path: "/selector", message: "is not a valid CSS selector" };
    throw new HubError("INVALID_PARAMS", `invalid params for callOn: ${JSON.stringify(selector)} is not a valid CSS selector`, {
      errors: [problem],
    });
  }
  if (!result.objectId) {
    throw new HubError(
      "NODE_NOT_FOUND",
      `no element matches the selector ${JSON.stringify(selector)}; check it, or take a snapshot and use a ref`,
    );
  }
  return { objectId: result.objectId, isElement: true };
}

async function connectedNode(scope: Scope, node: NodeTarget): Promise<Receiver> {
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
  return { objectId: object.objectId, isElement: true };
}

/** Chrome's answer to a declaration that is not a function, as INVALID_PARAMS; other errors unchanged. */
function asDeclarationError(error: unknown): unknown {
  if (!/Given expression does not evaluate to a function/.test(String(error))) return error;
  const problem = { path: "/functionDeclaration", message: "does not evaluate to a function" };
  return new HubError("INVALID_PARAMS", "invalid params for callOn: functionDeclaration must be a function, e.g. (el) => el.textContent", {
    errors: [problem],
  });
}
