import type { Budget } from "../budget.js";
import { HubError, type WireError } from "../errors.js";
import { describeBytes, type UnsendableMessageError } from "./cluster-codec.js";
import type { CallMessage } from "./messages.js";

/**
 * Whether a call's target is a tab, an agent, or a client (a call on a client's browser context, which runs on the
 * instance that keeps the client, if one does): it decides the error a caller gets when the owner is gone.
 */
export type TargetKind = "tab" | "agent" | "client";

/** The error a call gets when the instance that owns its target cannot be reached. */
export function unavailable(kind: TargetKind, target: string, why: string): HubError {
  if (kind === "agent")
    return new HubError("AGENT_UNAVAILABLE", `the agent on ${target} cannot be reached: ${why}; retry once it has reconnected`);
  if (kind === "client")
    return new HubError(
      "BROWSER_UNAVAILABLE",
      `client ${target}'s browser context is kept by another hub instance (its own egress policy or its persistent state), which cannot be reached: ${why}; retry shortly`,
    );
  return new HubError("TARGET_NOT_FOUND", `no tab ${target} can be reached: ${why}; list tabs with tabs.list`);
}

/** The caller's error for a forwarded call whose params make a message over CLUSTER_MAX_MESSAGE_BYTES (nothing was sent). */
export function paramsTooBig(message: CallMessage, target: string, refused: UnsendableMessageError): HubError {
  const what =
    refused.reason === "too_large"
      ? `are ${describeBytes(refused.bytes)} as a message between hub instances, over CLUSTER_MAX_MESSAGE_BYTES (${refused.maxBytes})`
      : "nest too deep to send to another hub instance";
  return new HubError(
    "INVALID_PARAMS",
    `params of ${message.method} ${what}: ${target} is not on this instance; send less (a shorter expression, smaller args), or call the instance that owns it directly`,
    {
      errors: [{ path: "/", message: `must make a message of at most ${refused.maxBytes} bytes to another hub instance` }],
    },
  );
}

/**
 * The answer an owner sends instead of one over CLUSTER_MAX_MESSAGE_BYTES: SERIALIZATION_FAILED, "the value cannot
 * be returned", as for a value JSON cannot carry; the call ran, but its value cannot cross to the caller's instance.
 */
export function answerTooBig(call: CallMessage, refused: UnsendableMessageError): string {
  const target = typeof call.params.target === "string" ? call.params.target : "the target";
  const error = new HubError(
    "SERIALIZATION_FAILED",
    `the answer to ${call.method} was ${describeBytes(refused.bytes)}, over CLUSTER_MAX_MESSAGE_BYTES (${refused.maxBytes}), the most one hub instance sends another; ` +
      `ask for less (maxSize for evaluate or content; clip, scale, maxWidth/maxHeight or jpeg with a quality for screenshot), or call the instance that owns ${target} directly`,
    { bytes: Number.isFinite(refused.bytes) ? refused.bytes : null, maxBytes: refused.maxBytes },
  );
  return JSON.stringify({ jsonrpc: "2.0", id: call.id, error: error.toWire() });
}

/** The result of an owner's answer, or its error thrown as a HubError (TIMEOUT named with the caller's whole budget). */
export function parseAnswer(response: string, budget: Budget): object {
  const answer = JSON.parse(response) as { result?: object; error?: WireError };
  if (!answer.error) return answer.result ?? {};
  const error = HubError.fromWire(answer.error);
  // The owner ran with what was left of the budget; the caller asked for the whole of it.
  if (error.errorName !== "TIMEOUT") throw error;
  throw new HubError("TIMEOUT", `timed out after ${budget.timeoutMs} ms`, { ...(error.data as object), timeoutMs: budget.timeoutMs });
}
