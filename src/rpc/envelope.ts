import { ErrorCode, type WireError } from "../errors.js";

/** A JSON-RPC id; `undefined` marks a notification. */
export type JsonRpcId = string | number | null;

/** A well-formed request or notification. */
export interface RequestItem {
  kind: "request";
  id: JsonRpcId | undefined;
  method: string;
  params: unknown;
}

/** A JSON-RPC response object. */
export type JsonRpcResponse = { jsonrpc: "2.0"; id: JsonRpcId; result: unknown } | { jsonrpc: "2.0"; id: JsonRpcId; error: WireError };

/** An item that is not a valid request; it is answered with its error. */
export interface InvalidItem {
  kind: "invalid";
  response: JsonRpcResponse;
}

/** What one frame holds: one item, a batch of items, or an error for the frame as a whole. */
export type Envelope =
  | { kind: "single"; item: RequestItem | InvalidItem }
  | { kind: "batch"; items: (RequestItem | InvalidItem)[] }
  | { kind: "frame-error"; response: JsonRpcResponse };

/** How strict the endpoint is: agents may omit `jsonrpc` (the DevTools client does). */
export interface EnvelopeOptions {
  maxBatch: number;
  allowMissingVersion: boolean;
}

/** Builds an error response. */
export function errorResponse(id: JsonRpcId, error: { code: number; message: string; data?: unknown }): JsonRpcResponse {
  const { code, message, data } = error;
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** Parses a frame and classifies it by JSON-RPC 2.0's rules, batches included (docs/protocol.md section 4). */
export function parseFrame(text: string, options: EnvelopeOptions): Envelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      kind: "frame-error",
      response: errorResponse(null, { code: ErrorCode.PARSE_ERROR, message: "Parse error: the frame is not valid JSON" }),
    };
  }
  return envelopeOf(value, options);
}

/** Classifies an already parsed frame: one item, a batch, or an error for the frame as a whole. */
export function envelopeOf(value: unknown, options: EnvelopeOptions): Envelope {
  if (!Array.isArray(value)) return { kind: "single", item: classify(value, options) };
  if (value.length === 0) {
    return {
      kind: "frame-error",
      response: errorResponse(null, { code: ErrorCode.INVALID_REQUEST, message: "Invalid Request: an empty batch" }),
    };
  }
  if (value.length > options.maxBatch) {
    const message = `Invalid Request: a batch of ${value.length} requests; at most ${options.maxBatch} (MAX_BATCH) per batch`;
    return { kind: "frame-error", response: errorResponse(null, { code: ErrorCode.INVALID_REQUEST, message }) };
  }
  return { kind: "batch", items: value.map((item: unknown) => classify(item, options)) };
}

/** Checks one request object; anything else becomes an Invalid Request answered with the id when it can be read. */
export function classify(value: unknown, options: EnvelopeOptions): RequestItem | InvalidItem {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return invalid(null, "a request must be an object");
  }
  const request = value as Record<string, unknown>;
  const hasId = "id" in request;
  if (hasId && !isId(request.id)) return invalid(null, "id must be a string, a number or null");
  const id = hasId ? (request.id as JsonRpcId) : null;
  // docs/protocol.md 6.7: the DevTools client's requests (id and method) may lack "jsonrpc"; notifications may not.
  const versionOk = request.jsonrpc === "2.0" || (options.allowMissingVersion && request.jsonrpc === undefined && hasId);
  if (!versionOk) return invalid(id, 'jsonrpc must be "2.0"');
  if (typeof request.method !== "string") return invalid(id, "method must be a string");
  const params = request.params;
  if (params !== undefined && (typeof params !== "object" || params === null)) {
    return invalid(id, "params must be an object (by name)");
  }
  return { kind: "request", id: hasId ? id : undefined, method: request.method, params };
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function invalid(id: JsonRpcId, why: string): InvalidItem {
  return { kind: "invalid", response: errorResponse(id, { code: ErrorCode.INVALID_REQUEST, message: `Invalid Request: ${why}` }) };
}
