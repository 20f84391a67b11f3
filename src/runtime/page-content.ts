import type { Budget } from "../budget.js";
import { ProtocolError } from "../cdp/callback-registry.js";
import type { CdpConnection } from "../cdp/connection.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import { IframeReader, readFrame, type ContentFormat, type FrameDocument } from "./frame-content.js";

/** The params of `content` once validated and defaulted. */
export interface ContentOptions {
  format: ContentFormat;
  maxSize?: number;
  includeIframes: boolean;
}

/** What `content` answers. */
export interface ContentResult {
  format: ContentFormat;
  content: string;
  length: number;
  truncated?: true;
}

const NAVIGATED = /Execution context was destroyed|Cannot find context with specified id|No frame for given id found|Inspected target navigated or closed/;

/** Reads the tab's main document (and, on request, every iframe's) as HTML or text; a navigation meanwhile is PAGE_NAVIGATED. */
export async function readPageContent(
  tab: TabSession,
  connection: CdpConnection,
  options: ContentOptions,
  budget: Budget,
): Promise<ContentResult> {
  const navigation = new AbortController();
  const stopWatching = tab.onNavigated(() => navigation.abort(pageNavigated()));
  // Commands fail at once when the main frame navigates instead of waiting on a document that is gone.
  const signal = AbortSignal.any([budget.signal, navigation.signal]);
  try {
    const full = await readDocuments(tab, connection, options, signal);
    return { format: options.format, ...cutToBytes(full, options.maxSize) };
  } catch (error) {
    if (navigation.signal.aborted && !budget.isOver) throw pageNavigated();
    if (error instanceof ProtocolError && NAVIGATED.test(error.message)) throw pageNavigated();
    throw error;
  } finally {
    stopWatching();
  }
}

async function readDocuments(tab: TabSession, connection: CdpConnection, options: ContentOptions, signal: AbortSignal): Promise<string> {
  const { frameTree } = await tab.send("Page.getFrameTree", undefined, { signal });
  const main = await readFrame(tab, frameTree.frame.id, options.format, signal);
  if (!options.includeIframes) return main;
  const reader = new IframeReader(connection, { format: options.format, signal, topOrigin: frameTree.frame.securityOrigin });
  const frames = await reader.read(tab, frameTree);
  const block = options.format === "html" ? htmlBlock : textBlock;
  return main + frames.map(block).join("");
}

/** The full content's UTF-8 byte length and, past `maxSize`, the content cut at the last whole character that fits. */
export function cutToBytes(full: string, maxSize: number | undefined): { content: string; length: number; truncated?: true } {
  const bytes = Buffer.from(full, "utf8");
  if (maxSize === undefined || bytes.length <= maxSize) return { content: full, length: bytes.length };
  let end = maxSize;
  // A byte 10xxxxxx continues a character, so the cut moves back to the start of the character it would split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { content: bytes.subarray(0, end).toString("utf8"), length: bytes.length, truncated: true };
}

function htmlBlock(frame: FrameDocument): string {
  const unreadable = frame.unreadable === undefined ? "" : ` unreadable="${escapeAttribute(frame.unreadable)}"`;
  const open = `<!-- tabwire:iframe src="${escapeAttribute(frame.url)}" origin="${escapeAttribute(frame.origin)}" crossOrigin=${frame.isCrossOrigin}${unreadable} -->`;
  return `\n${open}\n${frame.content}${frame.children.map(htmlBlock).join("")}\n<!-- /tabwire:iframe -->`;
}

function textBlock(frame: FrameDocument): string {
  const unreadable = frame.unreadable === undefined ? "" : `, unreadable: ${frame.unreadable}`;
  const header = `--- iframe ${frame.url} (${frame.isCrossOrigin ? "cross-origin" : "same-origin"}${unreadable}) ---`;
  return `\n\n${header}\n${frame.content}${frame.children.map(textBlock).join("")}`;
}

// With `>` escaped no value can end the comment early (`-->`, `--!>`), and `&` first keeps the escaping reversible.
function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function pageNavigated(): HubError {
  return new HubError("PAGE_NAVIGATED", "the page navigated or reloaded while its content was read; call content again on the new page");
}
