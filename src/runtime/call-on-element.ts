import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { RESULT_BYTES_HARD_CAP } from "../config.js";
import { HubError } from "../errors.js";
import { exceptionToError } from "./exception.js";
import { guardedCall, nextObjectGroup } from "./guarded-call.js";
import type { FrameSession } from "../cdp/remote-frames.js";
import { elementObject, nodeOfReference, releaseObjects, type ElementReference, type ObjectScope } from "./element-object.js";
import { applyMaxSize, readValue, type EvaluateResult } from "./remote-value.js";

/** The element a callOn runs on: a snapshot ref, a CSS selector, a backendNodeId, or none (the page's global object). */
export type ElementTarget = ElementReference | null;

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

/** Where the function runs: the remote object that is `this` and its session, and whether it is also passed as the first argument. */
interface Receiver {
  objectId: string;
  session: FrameSession;
  isElement: boolean;
}

type Scope = ObjectScope;

// Chrome compiles the declaration as `(<declaration>)`, so positions on its first line are one column to the right.
const DECLARATION_COLUMN_OFFSET = 1;

/** Calls a function with the element as `this` and first argument (or on the page's global object), like evaluate. */
export function callOnElement(tab: TabSession, options: CallOnOptions, budget: Budget): Promise<EvaluateResult> {
  // A stale or unknown ref fails before anything runs in the page.
  const element = options.element === null ? null : nodeOfReference(tab, options.element);
  const scope: Scope = { tab, budget, objectGroup: nextObjectGroup(), remoteSessions: new Set() };
  return guardedCall(tab, { budget, captureConsole: options.captureConsole }, async () => {
    try {
      const receiver = element === null ? await globalObject(scope) : await resolveElement(scope, element);
      const response = await callDeclaration(scope, receiver, options);
      if (response.exceptionDetails) throw exceptionToError(response.exceptionDetails, DECLARATION_COLUMN_OFFSET);
      const maxBytes = options.maxSize ?? RESULT_BYTES_HARD_CAP;
      const context = { ...scope, session: receiver.session, awaitPromise: options.awaitPromise, args: options.args, maxBytes };
      return applyMaxSize(await readValue(context, response.result), maxBytes);
    } finally {
      releaseObjects(scope);
    }
  });
}

function resolveElement(scope: Scope, element: ReturnType<typeof nodeOfReference>): Promise<Receiver> {
  return elementObject(scope, element, { method: "callOn", use: "node" }).then(({ objectId, session }) => ({
    objectId,
    session,
    isElement: true,
  }));
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
  return receiver.session
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
  return { objectId: result.objectId, session: scope.tab, isElement: false };
}

/** Chrome's answer to a declaration that is not a function, as INVALID_PARAMS; other errors unchanged. */
function asDeclarationError(error: unknown): unknown {
  if (!/Given expression does not evaluate to a function/.test(String(error))) return error;
  const problem = { path: "/functionDeclaration", message: "does not evaluate to a function" };
  return new HubError("INVALID_PARAMS", "invalid params for callOn: functionDeclaration must be a function, e.g. (el) => el.textContent", {
    errors: [problem],
  });
}
