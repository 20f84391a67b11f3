/** The frames of a /cdp connection: reading a command, and the errors it is answered with, worded as Chrome words its own. */
import { ProtocolError } from "../cdp/callback-registry.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";

/** One command from a /cdp caller. */
export interface Frame {
  id: number;
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

/** A CDP error answer, as Chrome words its own. */
export class CdpFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const NO_SESSION = (): CdpFailure => new CdpFailure(-32001, "Session with given id not found.");
export const NO_TARGET = (): CdpFailure => new CdpFailure(-32602, "No target with given id found");

export const NO_CONTEXT = (): CdpFailure =>
  new CdpFailure(-32602, "Failed to find browser context with id: this connection has its client's context only");

export function refused(method: string): CdpFailure {
  return new CdpFailure(
    -32000,
    `tabwire's /cdp refuses ${method.slice(0, 100)}: it reaches past this connection's client (docs/cdp.md lists what is refused)`,
  );
}

/** An error as a CDP client reads it: Chrome's own for what Chrome refused, a hub timeout, or the refusal. */
export function wireError(error: unknown, method: string): { code: number; message: string } {
  if (error instanceof CdpFailure) return { code: error.code, message: error.message };
  if (error instanceof ProtocolError) return { code: error.protocolCode, message: error.protocolMessage };
  if (error instanceof HubError) return { code: -32000, message: error.message };
  log.warn("a /cdp command failed in the hub", { method, error: (error as Error).message });
  return { code: -32603, message: "internal error; the hub logged the details" };
}

/** A command read from a frame, or the id of a frame that is JSON but no command (to answer it), if it has one. */
export function readFrame(text: string): Frame | { invalidId: number | undefined } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalidId: undefined };
  }
  if (typeof value !== "object" || value === null) return { invalidId: undefined };
  const { id, method, params, sessionId } = value as Record<string, unknown>;
  const invalid = { invalidId: Number.isSafeInteger(id) ? (id as number) : undefined };
  if (!Number.isSafeInteger(id) || typeof method !== "string" || method.length > 200) return invalid;
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) return invalid;
  if (sessionId !== undefined && typeof sessionId !== "string") return invalid;
  return { id: id as number, method, params: (params ?? {}) as Record<string, unknown>, ...(sessionId === undefined ? {} : { sessionId }) };
}
