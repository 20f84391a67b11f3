import type { Protocol } from "devtools-protocol";
import { HubError } from "../errors.js";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { exceptionToError } from "./exception.js";

/** The result of `evaluate` and `callOn` (PROTOCOL.md section 5, "Running JavaScript"). */
export interface EvaluateResult {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  console?: { level: string; text: string; timestamp: number }[];
  truncated?: true;
}

/** What reading a remote value needs: the tab, the call's budget, the object group to release, and options. */
export interface ReadContext {
  tab: TabSession;
  budget: Budget;
  objectGroup: string;
  awaitPromise: boolean;
  args: readonly unknown[];
}

const CALL_WITH_ARGS = "function (...args) { return this(...args); }";
const RETURN_THIS = "function () { return this; }";
// Subtypes whose JSON value says little on its own, so the description goes along.
const DESCRIBED_SUBTYPES = new Set(["date", "regexp", "map", "set", "weakmap", "weakset", "error", "promise", "proxy", "typedarray", "arraybuffer"]);

/** Turns the remote result of evaluated code into the protocol's result, calling it with `args` if it is a function. */
export async function readResult(context: ReadContext, remote: Protocol.Runtime.RemoteObject): Promise<EvaluateResult> {
  if (remote.type !== "function" || !remote.objectId) return readValue(context, remote);
  const called = await context.tab.send(
    "Runtime.callFunctionOn",
    {
      functionDeclaration: CALL_WITH_ARGS,
      objectId: remote.objectId,
      arguments: context.args.map((value) => ({ value })),
      awaitPromise: context.awaitPromise,
      userGesture: true,
      objectGroup: context.objectGroup,
    },
    { budget: context.budget },
  );
  if (called.exceptionDetails) throw exceptionToError(called.exceptionDetails, 0);
  return readValue(context, called.result);
}

/** Maps one remote object: primitives as they are, nodes/functions/symbols by description, other objects by value. */
export async function readValue(context: ReadContext, remote: Protocol.Runtime.RemoteObject): Promise<EvaluateResult> {
  const result: EvaluateResult = { type: remote.type };
  if (remote.subtype !== undefined) result.subtype = remote.subtype;
  if (remote.unserializableValue !== undefined) {
    result.unserializableValue = remote.unserializableValue;
    return result;
  }
  if (!remote.objectId) {
    if (remote.type !== "undefined") result.value = remote.value ?? null;
    return result;
  }
  if (remote.type === "function" || remote.type === "symbol" || remote.subtype === "node") {
    if (remote.description !== undefined) result.description = remote.description;
    return result;
  }
  if (remote.description !== undefined && remote.subtype !== undefined && DESCRIBED_SUBTYPES.has(remote.subtype)) {
    result.description = remote.description;
  }
  result.value = await fetchValue(context, remote.objectId);
  return result;
}

async function fetchValue(context: ReadContext, objectId: string): Promise<unknown> {
  try {
    const byValue = await context.tab.send(
      "Runtime.callFunctionOn",
      { functionDeclaration: RETURN_THIS, objectId, returnByValue: true },
      { budget: context.budget },
    );
    return byValue.result.value;
  } catch (error) {
    throw asSerializationError(error);
  }
}

/** Chrome's by-value failures (cycles, values with no JSON form) as SERIALIZATION_FAILED; other errors unchanged. */
export function asSerializationError(error: unknown): unknown {
  const message = error instanceof Error ? error.message : "";
  if (/Object reference chain is too long|couldn't be returned by value/.test(message)) {
    return new HubError(
      "SERIALIZATION_FAILED",
      "the result cannot be returned as JSON (it is circular or has no JSON form); return a plain value instead",
    );
  }
  return error;
}

/** Applies `maxSize`: a value whose JSON is longer becomes that JSON cut to maxSize bytes, with `truncated: true`. */
export function applyMaxSize(result: EvaluateResult, maxSize: number | undefined): EvaluateResult {
  if (maxSize === undefined || result.value === undefined) return result;
  const json = JSON.stringify(result.value);
  const bytes = Buffer.from(json, "utf8");
  if (bytes.length <= maxSize) return result;
  // Cutting inside a multi-byte character would leave a replacement character; back up to its first byte.
  let end = maxSize;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  result.value = bytes.subarray(0, end).toString("utf8");
  result.truncated = true;
  return result;
}
