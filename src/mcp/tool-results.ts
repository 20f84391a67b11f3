import type { CallToolResult } from "@modelcontextprotocol/server";
import { ErrorCode, HubError } from "../errors.js";
import { compactChangeLines } from "../runtime/snapshot-compact.js";
import type { PageSnapshot } from "./page-answer.js";

/** The longest side of a screenshot sent to a model unless the call asks otherwise (what vision models take whole). */
export const MCP_IMAGE_MAX_SIDE = 1_568;
/** A snapshot's page when the call gives no maxChars: about 10,000 tokens; nextCursor reads on. */
export const MCP_SNAPSHOT_MAX_CHARS = 40_000;
/** content's and evaluate's size when the call gives no maxSize. */
export const MCP_VALUE_MAX_BYTES = 100_000;

/**
 * The params a model gets where its call leaves them out, sized for its context: a snapshot read from the DOM (fast on
 * large pages), written for a model (`compact`), a page at a time, content, values and response bodies cut at 100 KB, screenshots at most 1,568 px on the long side and
 * encoded for speed (an agent waits on it; the image's pixels, not its bytes, are what a model counts). The
 * tools' schemas show them as their defaults.
 */
export const MCP_DEFAULTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  snapshot: { source: "dom", compact: true, maxChars: MCP_SNAPSHOT_MAX_CHARS },
  content: { maxSize: MCP_VALUE_MAX_BYTES },
  evaluate: { maxSize: MCP_VALUE_MAX_BYTES },
  "network.get": { maxSize: MCP_VALUE_MAX_BYTES },
  screenshot: { maxWidth: MCP_IMAGE_MAX_SIDE, maxHeight: MCP_IMAGE_MAX_SIDE, optimizeForSpeed: true },
};

/** A tool's params with MCP_DEFAULTS filled in where the call left them out; explicit params win. */
export function sizedForModels(method: string, params: Record<string, unknown>): Record<string, unknown> {
  return { ...MCP_DEFAULTS[method], ...params };
}

/**
 * A method's result as a tool result: the result as JSON text and as structuredContent; a snapshot as its indented
 * text (the tree left out of structuredContent); a screenshot as an image; an action's page changes as their lines
 * under the JSON, written as the compact snapshot writes lines; and `page`, the snapshot of a page the call loaded,
 * as its text under the JSON (the URL and title it repeats left out of the text; structuredContent keeps them).
 */
export function toolResult(method: string, result: unknown, page: PageSnapshot | null = null): CallToolResult {
  if (method === "snapshot") {
    const { root: _root, text, ...rest } = result as { root: unknown; text: string; nextCursor?: string };
    return { content: [{ type: "text", text: snapshotText(text, rest.nextCursor) }], structuredContent: rest };
  }
  if (method === "screenshot") {
    const { data, format, width, height } = result as { data: string; format: string; width: number; height: number };
    return { content: [{ type: "image", data, mimeType: `image/${format}` }], structuredContent: { format, width, height } };
  }
  const structured =
    result !== null && typeof result === "object" && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
  if (page) {
    const { text, ...snapshot } = page;
    const { changes: _changes, ...head } = structured;
    return {
      content: [{ type: "text", text: `${JSON.stringify(head)}\n${snapshotText(text, page.nextCursor)}` }],
      structuredContent: { ...structured, snapshot: { snapshotId: snapshot.snapshotId, url: snapshot.url, title: snapshot.title } },
    };
  }
  return { content: [{ type: "text", text: withChangedLines(structured) ?? JSON.stringify(result) }], structuredContent: structured };
}

function snapshotText(text: string, nextCursor: string | undefined): string {
  return nextCursor === undefined ? text : `${text}\n\n(more of this snapshot: call snapshot with cursor "${nextCursor}")`;
}

/** An action's answer with its page changes' lines written out, compact, rather than JSON-escaped on one line; null for any other answer. */
function withChangedLines(result: Record<string, unknown>): string | null {
  const changes = result.changes as { diff?: unknown } | undefined;
  if (typeof changes?.diff !== "string") return null;
  const { diff, ...rest } = changes;
  const { changes: _changes, ...answer } = result;
  const head = Object.keys(rest).length > 0 ? { ...answer, changes: rest } : answer;
  const lines = compactChangeLines(diff);
  return lines === "" ? JSON.stringify(head) : `${JSON.stringify(head)}\nPage changes:\n${lines}`;
}

/** A failed call as a tool result the model reads: the error's name, code, message and data. */
export function toolError(error: unknown): CallToolResult {
  const wire =
    error instanceof HubError ? error.toWire() : { code: ErrorCode.INTERNAL_ERROR, message: "internal error; the hub logged the details" };
  const name = (Object.keys(ErrorCode) as (keyof typeof ErrorCode)[]).find((key) => ErrorCode[key] === wire.code) ?? "ERROR";
  const data = "data" in wire && wire.data !== undefined ? ` ${JSON.stringify(wire.data)}` : "";
  return { isError: true, content: [{ type: "text", text: `${name} (${wire.code}): ${wire.message}${data}` }] };
}
