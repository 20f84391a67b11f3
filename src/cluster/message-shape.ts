import { ID_PATTERN } from "../target-id.js";
import { MAX_PARAMS_DEPTH, tooDeep } from "../rpc/nesting.js";
import type {
  AnswerMessage,
  CallMessage,
  CancelMessage,
  ClosedMessage,
  ClusterMessage,
  EventMessage,
  EvictMessage,
  FrameMessage,
  NotifyMessage,
  ResumedMessage,
  ResumeMessage,
  UntunnelMessage,
} from "./messages.js";

/**
 * How deep a cluster message may nest: params the router accepts (MAX_PARAMS_DEPTH) and the notifications a page
 * or agent produces fit with room to spare, and JSON.stringify, which recurses, writes it back with any stack.
 */
export const MAX_MESSAGE_DEPTH = 2 * MAX_PARAMS_DEPTH;

type Fields = Record<string, unknown>;

// Bounds on the strings of a message: generous for every real value, tight enough to keep a log line short.
const MAX_ID_CHARS = 128;
const MAX_CONN_CHARS = 256;
const MAX_PEER_CHARS = 512;
const MAX_METHOD_CHARS = 100;
const MAX_TARGET_CHARS = 300;
// A WebSocket close reason is at most 123 bytes.
const MAX_CLOSE_REASON_CHARS = 123;
const EPOCH = /^\d{1,20}$/;

/** Parses a verified body into a cluster message: JSON, then depth, then the fields of its type; null when any fails. */
export function parseClusterMessage(body: string): ClusterMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(value) || tooDeep(value, MAX_MESSAGE_DEPTH) !== null) return null;
  return shaped(value);
}

// Each message is rebuilt from the fields its type has: nothing else a sender added travels further.
function shaped(value: Fields): ClusterMessage | null {
  switch (value.type) {
    case "call":
      return call(value);
    case "answer":
      return isText(value.id, MAX_ID_CHARS) && isInstance(value.from) && typeof value.response === "string"
        ? ({ type: "answer", id: value.id, from: value.from, response: value.response } satisfies AnswerMessage)
        : null;
    case "notify":
      return isText(value.conn, MAX_CONN_CHARS) && isText(value.method, MAX_METHOD_CHARS) && isRecord(value.params)
        ? ({ type: "notify", conn: value.conn, method: value.method, params: value.params } satisfies NotifyMessage)
        : null;
    case "cancel":
      return isText(value.id, MAX_ID_CHARS) && isInstance(value.from) && isText(value.conn, MAX_CONN_CHARS)
        ? ({ type: "cancel", id: value.id, from: value.from, conn: value.conn } satisfies CancelMessage)
        : null;
    case "closed":
      return isInstance(value.from) && isText(value.conn, MAX_CONN_CHARS)
        ? ({ type: "closed", from: value.from, conn: value.conn } satisfies ClosedMessage)
        : null;
    case "evict":
      return isText(value.target, MAX_TARGET_CHARS) && typeof value.epoch === "string" && EPOCH.test(value.epoch)
        ? ({ type: "evict", target: value.target, epoch: value.epoch } satisfies EvictMessage)
        : null;
    case "event":
      return event(value);
    case "resume":
      return resume(value);
    case "resumed":
      return isText(value.id, MAX_ID_CHARS) && isInstance(value.from) && typeof value.answer === "string"
        ? ({ type: "resumed", id: value.id, from: value.from, answer: value.answer } satisfies ResumedMessage)
        : null;
    case "frame":
      return (value.direction === "up" || value.direction === "down") &&
        isInstance(value.from) &&
        isText(value.conn, MAX_CONN_CHARS) &&
        isTexts(value.texts)
        ? ({ type: "frame", direction: value.direction, from: value.from, conn: value.conn, texts: value.texts } satisfies FrameMessage)
        : null;
    case "untunnel":
      return untunnel(value);
    default:
      return null;
  }
}

function call(value: Fields): CallMessage | null {
  const { id, from, conn, scope, peer, method, params } = value;
  if (!isText(id, MAX_ID_CHARS) || !isInstance(from) || !isText(conn, MAX_CONN_CHARS) || !isText(peer, MAX_PEER_CHARS)) return null;
  if (!isText(method, MAX_METHOD_CHARS) || !isRecord(params) || !isScope(scope)) return null;
  return { type: "call", id, from, conn, scope, peer, method, params };
}

function resume(value: Fields): ResumeMessage | null {
  const { id, from, conn, binding, session, lastSeq } = value;
  if (!isText(id, MAX_ID_CHARS) || !isInstance(from) || !isText(conn, MAX_CONN_CHARS) || !isText(binding, MAX_ID_CHARS)) return null;
  if (!isText(session, MAX_ID_CHARS) || !Number.isSafeInteger(lastSeq) || (lastSeq as number) < 0) return null;
  return { type: "resume", id, from, conn, binding, session, lastSeq: lastSeq as number };
}

function untunnel(value: Fields): UntunnelMessage | null {
  const { from, conn, dropped, code, reason } = value;
  if (!isInstance(from) || !isText(conn, MAX_CONN_CHARS) || typeof dropped !== "boolean") return null;
  const closeCode = Number.isInteger(code) && (code as number) >= 1000 && (code as number) <= 4999 ? { code: code as number } : {};
  const closeReason = isText(reason, MAX_CLOSE_REASON_CHARS) ? { reason } : {};
  return { type: "untunnel", from, conn, dropped, ...closeCode, ...closeReason };
}

function event(value: Fields): EventMessage | null {
  const { from, topic, clientId, method, params } = value;
  if (!isInstance(from) || (topic !== "tabs" && topic !== "agents") || typeof clientId !== "string" || !ID_PATTERN.test(clientId))
    return null;
  if (!isText(method, MAX_METHOD_CHARS) || !isRecord(params)) return null;
  return { type: "event", from, topic, clientId, method, params };
}

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isText(value: unknown, maxChars: number): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= maxChars;
}

function isTexts(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string");
}

function isInstance(value: unknown): value is string {
  return typeof value === "string" && ID_PATTERN.test(value);
}

function isScope(value: unknown): value is string[] | null {
  return value === null || (Array.isArray(value) && value.every((item) => typeof item === "string" && ID_PATTERN.test(item)));
}
