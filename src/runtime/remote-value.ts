import { randomUUID } from "node:crypto";
import type { Protocol } from "devtools-protocol";
import { HubError } from "../errors.js";
import type { Budget } from "../budget.js";
import type { FrameSession } from "../cdp/remote-frames.js";
import type { EvaluateResult } from "../protocol/types.js";
import { exceptionToError } from "./exception.js";
import { cutUtf8, UTF8_LENGTH_IN_PAGE } from "./utf8-cut.js";

export type { EvaluateResult };

/** What reading a remote value needs: the session it lives in, the call's budget, the object group to release, and options. */
export interface ReadContext {
  session: FrameSession;
  budget: Budget;
  objectGroup: string;
  awaitPromise: boolean;
  args: readonly unknown[];
  /** The most bytes of JSON a value may have: maxSize, else MAX_RESULT_BYTES. */
  maxBytes: number;
}

const CALL_WITH_ARGS = "function (...args) { return this(...args); }";
// Marks the page's answer that a value was cut there (or could not be written at all), unlike any value a page returns.
const CUT_MARK = `__tabwire_cut_${randomUUID()}`;
// Runs in the page: the value itself when its JSON fits in max UTF-8 bytes, else its JSON cut there, so a huge value
// never crosses CDP whole. A value JSON cannot write (a cycle) is returned as it is, for Chrome to say why.
const RETURN_THIS_WITHIN = `function (max, mark) {
  let json;
  try {
    json = JSON.stringify(this);
  } catch (error) {
    if (error instanceof RangeError) return { [mark]: "unwritable", reason: String(error) };
    return this;
  }
  if (json === undefined || json.length * 3 <= max) return this;
  if (json.length <= max && (${UTF8_LENGTH_IN_PAGE})(json) <= max) return this;
  return { [mark]: "cut", json: json.slice(0, max) };
}`;
// Subtypes whose JSON value says little on its own, so the description goes along.
const DESCRIBED_SUBTYPES = new Set([
  "date",
  "regexp",
  "map",
  "set",
  "weakmap",
  "weakset",
  "error",
  "promise",
  "proxy",
  "typedarray",
  "arraybuffer",
]);

/** Turns the remote result of evaluated code into the protocol's result, calling it with `args` if it is a function. */
export async function readResult(context: ReadContext, remote: Protocol.Runtime.RemoteObject): Promise<EvaluateResult> {
  if (remote.type !== "function" || !remote.objectId) return readValue(context, remote);
  const called = await context.session.send(
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

/** A value that holds no remote object (a primitive, null, undefined, NaN, a bigint) as the protocol's result. */
export function primitiveValue(remote: Protocol.Runtime.RemoteObject): EvaluateResult {
  const result: EvaluateResult = { type: remote.type };
  if (remote.subtype !== undefined) result.subtype = remote.subtype;
  if (remote.unserializableValue !== undefined) result.unserializableValue = remote.unserializableValue;
  else if (remote.type !== "undefined") result.value = remote.value ?? null;
  return result;
}

/** Maps one remote object: primitives as they are, nodes/functions/symbols by description, other objects by value. */
export async function readValue(context: ReadContext, remote: Protocol.Runtime.RemoteObject): Promise<EvaluateResult> {
  const { objectId } = remote;
  if (!objectId) return primitiveValue(remote);
  // An object: Chrome gives no unserializableValue with an objectId (that is for NaN, -0, Infinity and bigints).
  const result: EvaluateResult = { type: remote.type };
  if (remote.subtype !== undefined) result.subtype = remote.subtype;
  if (remote.type === "function" || remote.type === "symbol" || remote.subtype === "node") {
    if (remote.description !== undefined) result.description = remote.description;
    return result;
  }
  if (remote.description !== undefined && remote.subtype !== undefined && DESCRIBED_SUBTYPES.has(remote.subtype)) {
    result.description = remote.description;
  }
  const fetched = await fetchValue(context, objectId);
  result.value = fetched.value;
  if (fetched.truncated) result.truncated = true;
  return result;
}

/** An object's value by value, or its JSON cut to maxBytes in the page (one round trip either way). */
async function fetchValue(context: ReadContext, objectId: string): Promise<{ value: unknown; truncated: boolean }> {
  let value: unknown;
  try {
    const byValue = await context.session.send(
      "Runtime.callFunctionOn",
      {
        functionDeclaration: RETURN_THIS_WITHIN,
        objectId,
        arguments: [{ value: context.maxBytes }, { value: CUT_MARK }],
        returnByValue: true,
      },
      { budget: context.budget },
    );
    value = byValue.result.value;
  } catch (error) {
    throw asSerializationError(error);
  }
  const mark = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[CUT_MARK] : undefined;
  if (mark === undefined) return { value, truncated: false };
  const page = value as { json?: unknown; reason?: unknown };
  if (mark === "cut" && typeof page.json === "string") return { value: cutUtf8(page.json, context.maxBytes).text, truncated: true };
  throw new HubError(
    "SERIALIZATION_FAILED",
    `the result is too large to write as JSON in the page (${String(page.reason).slice(0, 200)}); return less, e.g. a part or a summary of it`,
  );
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

/**
 * Applies the size cap (maxSize, else MAX_RESULT_BYTES): a value whose JSON is longer becomes that JSON cut to that
 * many bytes, with `truncated: true`. A value the page already cut is left as it is.
 */
export function applyMaxSize(result: EvaluateResult, maxBytes: number): EvaluateResult {
  if (result.value === undefined || result.truncated) return result;
  const cut = cutUtf8(JSON.stringify(result.value), maxBytes);
  if (!cut.cut) return result;
  result.value = cut.text;
  result.truncated = true;
  return result;
}
