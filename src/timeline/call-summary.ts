import { redactUrl } from "../log.js";

// Params whose values a timeline shows as they are: what a call acted on and how, never what it typed or ran.
const SHOWN = new Set([
  "selector",
  "ref",
  "key",
  "button",
  "waitUntil",
  "format",
  "source",
  "state",
  "requestId",
  "method",
  "action",
  "accept",
  "reason",
]);
// Params the summary leaves out: the target is the timeline's own, the others say nothing of the step.
const LEFT_OUT = new Set(["target", "timeoutMs", "traceparent"]);
const URL_PARAMS = new Set(["url", "waitForUrl"]);
const MAX_SHOWN_CHARS = 120;
const MAX_SUMMARY_CHARS = 400;

/**
 * A call as one short line: its method and the params its caller gave (`sent`, not the schema's defaults), with selectors, refs, keys and URLs (redacted) as they are,
 * numbers and booleans as they are, and every other text (typed or filled values, code, a task's input) as its length
 * only, so no password, cookie value or token a caller sends enters a timeline.
 */
export function callSummary(method: string, params: Record<string, unknown>, sent: readonly string[] = Object.keys(params)): string {
  const parts = [method];
  for (const name of sent) {
    const value = params[name];
    if (LEFT_OUT.has(name) || value === undefined) continue;
    parts.push(`${name}=${shownValue(name, value)}`);
  }
  const line = parts.join(" ");
  return line.length <= MAX_SUMMARY_CHARS ? line : `${line.slice(0, MAX_SUMMARY_CHARS)}…`;
}

function shownValue(name: string, value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (typeof value === "string") {
    if (URL_PARAMS.has(name)) return JSON.stringify(cut(redactUrl(value)));
    return SHOWN.has(name) ? JSON.stringify(cut(value)) : `(${value.length} characters)`;
  }
  if (Array.isArray(value)) return `(${value.length} items)`;
  return shownObject(value as Record<string, unknown>);
}

// An object param (drag's from and to, a point): its selector, ref and coordinates, nothing else.
function shownObject(value: Record<string, unknown>): string {
  const inner = Object.entries(value)
    .filter(([key, item]) => ["selector", "ref", "x", "y"].includes(key) && (typeof item === "string" || typeof item === "number"))
    .map(([key, item]) => `${key}=${typeof item === "string" ? JSON.stringify(cut(item)) : String(item)}`);
  return `{${inner.join(" ")}}`;
}

function cut(text: string): string {
  return text.length <= MAX_SHOWN_CHARS ? text : `${text.slice(0, MAX_SHOWN_CHARS)}…`;
}
