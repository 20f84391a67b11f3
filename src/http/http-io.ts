import type { IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode, HubError } from "../errors.js";
import { MAX_FRAME_DEPTH, tooDeep } from "../rpc/nesting.js";
import type { Refusal } from "../transport/access-policy.js";

/** An HTTP failure: its status, the `{error: {code, message, data?}}` body, and any headers it needs (Retry-After). */
export class HttpError extends Error {
  readonly code: number | string;
  readonly data?: unknown;
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    readonly status: number,
    error: { code: number | string; message: string; data?: unknown; headers?: Record<string, string> },
  ) {
    super(error.message);
    this.code = error.code;
    if (error.data !== undefined) this.data = error.data;
    if (error.headers !== undefined) this.headers = error.headers;
  }
}

/** The HTTP failure of a refused request: 401, 403 FORBIDDEN, or 429 with Retry-After and `data.retryAfterMs`. */
export function refusalError(refusal: Refusal): HttpError {
  const { status, message, retryAfterMs } = refusal;
  if (retryAfterMs !== undefined)
    return new HttpError(status, {
      code: status,
      message,
      data: { retryAfterMs },
      headers: { "retry-after": String(Math.ceil(retryAfterMs / 1000)) },
    });
  return new HttpError(status, { code: status === 403 ? ErrorCode.FORBIDDEN : status, message });
}

const STATUS_BY_CODE = new Map<number, number>([
  [ErrorCode.PARSE_ERROR, 400],
  [ErrorCode.INVALID_REQUEST, 400],
  [ErrorCode.INVALID_PARAMS, 400],
  [ErrorCode.TARGET_NOT_FOUND, 404],
  [ErrorCode.NODE_NOT_FOUND, 404],
  [ErrorCode.FORBIDDEN, 403],
  [ErrorCode.AGENT_UNAVAILABLE, 409],
  [ErrorCode.TIMEOUT, 504],
  [ErrorCode.OVERLOADED, 503],
  [ErrorCode.CANCELLED, 499],
]);

/** The HTTP status of a hub error: 400, 403, 404, 409, 504...; browser, agent and page failures are 502. */
export function statusOf(code: number): number {
  if (code === ErrorCode.INTERNAL_ERROR) return 500;
  return STATUS_BY_CODE.get(code) ?? 502;
}

/** Writes a JSON body with its status (never with Access-Control-Allow-Origin); one that cannot be written is a 500 that says why. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (error) {
    status = 500;
    const message = `the answer could not be written (${(error as Error).message}); ask for less, e.g. a smaller limit or maxSize`;
    text = JSON.stringify({ error: { code: ErrorCode.INTERNAL_ERROR, message } });
  }
  response.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  response.end(text);
}

/** Writes an error as `{error: {code, message, data?}}` with the status that fits it. */
export function sendError(response: ServerResponse, error: unknown): void {
  if (error instanceof HttpError) {
    for (const [name, value] of Object.entries(error.headers ?? {})) response.setHeader(name, value);
    const body = { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) };
    return sendJson(response, error.status, { error: body });
  }
  const wire =
    error instanceof HubError ? error.toWire() : { code: ErrorCode.INTERNAL_ERROR, message: "internal error; the hub logged the details" };
  sendJson(response, statusOf(wire.code), { error: wire });
}

/** Reads a JSON object body of at most `limit` bytes (413 past it, naming `cap`; 400 when it is not a JSON object). */
export async function readJsonBody(request: IncomingMessage, limit: number, cap = "MAX_PAYLOAD"): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, { code: 413, message: `the body is larger than ${limit} bytes (${cap})` });
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, { code: ErrorCode.PARSE_ERROR, message: "the body is not valid JSON" });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new HttpError(400, { code: ErrorCode.INVALID_REQUEST, message: "the body must be a JSON object" });
  const deep = tooDeep(value, MAX_FRAME_DEPTH);
  if (deep !== null)
    throw new HttpError(400, {
      code: ErrorCode.INVALID_REQUEST,
      message: `the body nests deeper than ${MAX_FRAME_DEPTH} levels at ${deep.slice(0, 200)}; flatten it`,
    });
  return value as Record<string, unknown>;
}

/** A string field of a body, or 400 naming it. */
export function field(body: Record<string, unknown>, name: string, required = true): string | undefined {
  const value = body[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || value.length === 0) {
    throw new HttpError(400, {
      code: ErrorCode.INVALID_PARAMS,
      message: `${name} is required and must be a non-empty string`,
      data: { errors: [{ path: `/${name}`, message: "must be a string" }] },
    });
  }
  return value;
}
