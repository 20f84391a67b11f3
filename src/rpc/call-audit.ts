import { hash } from "node:crypto";
import { auditCall, type AuditedCall } from "../log.js";
import { traceIdOf } from "../tracing.js";
import type { ConnectionState } from "./method.js";

// Params that carry code the page runs: audit.log keeps their hash, never the code.
const CODE_PARAMS = ["expression", "functionDeclaration"] as const;
// What a line keeps of a caller's free text (a target, a client id): enough to tell, never a page's worth.
const MAX_TEXT = 300;

/**
 * Writes a call that may change something (a method without the `reads` trait) to audit.log: who made it (the
 * token's id, or the agent), on which client and target, what it was, how it ended, and in which of the caller's
 * traces (its traceparent's trace id). Never params beyond these: code is written as its SHA-256, values typed into
 * pages not at all.
 */
export function auditCallOf(
  call: { method: string; params: Record<string, unknown> | undefined; outcome: string },
  connection: ConnectionState,
): void {
  const { method, params, outcome } = call;
  const line: AuditedCall = { method, outcome, who: connection.who ?? `connection ${connection.id}`, peer: connection.peer };
  const target = params?.target;
  if (typeof target === "string") line.target = target.slice(0, MAX_TEXT);
  const clientId = params?.clientId;
  if (typeof clientId === "string") line.clientId = clientId.slice(0, MAX_TEXT);
  for (const name of CODE_PARAMS) {
    const code = params?.[name];
    if (typeof code === "string") line.codeSha256 = hash("sha256", code, "hex");
  }
  // The call's own traceparent, else its connection's; one the router refused is not the caller's trace.
  const traceparent = params !== undefined && "traceparent" in params ? params.traceparent : connection.traceparent;
  const traceId = traceIdOf(traceparent);
  if (traceId !== undefined) line.traceId = traceId;
  auditCall(line);
}
