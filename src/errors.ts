/** The error codes of docs/protocol.md section 8, by name. */
export const ErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  EVALUATION_FAILED: -32000,
  TIMEOUT: -32001,
  TARGET_NOT_FOUND: -32002,
  TARGET_CLOSED: -32003,
  NODE_NOT_FOUND: -32004,
  SERIALIZATION_FAILED: -32005,
  BROWSER_UNAVAILABLE: -32006,
  FORBIDDEN: -32007,
  AGENT_UNAVAILABLE: -32008,
  AGENT_ERROR: -32009,
  CANCELLED: -32010,
  OVERLOADED: -32011,
  NAVIGATION_FAILED: -32012,
  PAGE_NAVIGATED: -32013,
  PAGE_LOADING: -32014,
} as const;

/** One of the names of the error table. */
export type ErrorName = keyof typeof ErrorCode;

/** The JSON-RPC error object as it goes over the wire. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/** An error the hub answers with: a stable code, a message for people, optional data for programs. */
export class HubError extends Error {
  readonly code: number;
  readonly errorName: ErrorName;
  readonly data: unknown;

  constructor(name: ErrorName, message: string, data?: unknown) {
    super(message);
    this.name = "HubError";
    this.errorName = name;
    this.code = ErrorCode[name];
    this.data = data;
  }

  /** Rebuilds a HubError from a wire error object (the name found from its code). */
  static fromWire(wire: WireError): HubError {
    const name = (Object.keys(ErrorCode) as ErrorName[]).find((key) => ErrorCode[key] === wire.code) ?? "INTERNAL_ERROR";
    return new HubError(name, wire.message, wire.data);
  }

  /** The error object for a JSON-RPC response. */
  toWire(): WireError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Whether a thrown value is a HubError with the given name. */
export function isHubError(error: unknown, name?: ErrorName): error is HubError {
  return error instanceof HubError && (name === undefined || error.errorName === name);
}

/** Turns anything thrown into a wire error; unknown throws become a generic INTERNAL_ERROR. */
export function toWireError(error: unknown): WireError {
  if (error instanceof HubError) return error.toWire();
  return { code: ErrorCode.INTERNAL_ERROR, message: "internal error; the hub logged the details" };
}
