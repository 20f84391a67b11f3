import type { Budget } from "../budget.js";
import { ProtocolError } from "../cdp/callback-registry.js";
import type { CdpConnection } from "../cdp/connection.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import { IframeReader, readFrame, type ContentFormat, type FrameDocument } from "./frame-content.js";
import type { Result } from "../protocol/types.js";
import { cutUtf8 } from "./utf8-cut.js";
import { protocolFailureOf } from "../cdp/protocol-errors.js";

/** The params of `content` once validated and defaulted (maxSize: the caller's, else MAX_RESULT_BYTES). */
export interface ContentOptions {
  format: ContentFormat;
  maxSize: number;
  includeIframes: boolean;
}

/** What `content` answers. */
export type ContentResult = Result<"content">;

/** Where a page's content is read: the tab, and the browser connection that reaches its out-of-process iframes. */
export interface ContentSource {
  tab: TabSession;
  connection: CdpConnection;
}

/** Reads the tab's main document (and, on request, every iframe's) as HTML or text; a navigation meanwhile is PAGE_NAVIGATED. */
export async function readPageContent(source: ContentSource, options: ContentOptions, budget: Budget): Promise<ContentResult> {
  const { tab } = source;
  const navigation = new AbortController();
  const stopWatching = tab.onNavigated(() => navigation.abort(pageNavigated()));
  // Commands fail at once when the main frame navigates instead of waiting on a document that is gone.
  const signal = AbortSignal.any([budget.signal, navigation.signal]);
  try {
    const { full, cutBytes } = await readDocuments(source, options, signal);
    const cut = cutToBytes(full, options.maxSize);
    // Bytes the page cut count in the full length too.
    return { format: options.format, ...cut, length: cut.length + cutBytes, ...(cutBytes > 0 ? { truncated: true as const } : {}) };
  } catch (error) {
    if (navigation.signal.aborted && !budget.isOver) throw pageNavigated();
    const failure = protocolFailureOf(error);
    if (error instanceof ProtocolError && (failure === "context-gone" || failure === "frame-gone")) throw pageNavigated();
    throw error;
  } finally {
    stopWatching();
  }
}

/** The documents as one text, and how many of their UTF-8 bytes the page cut. */
async function readDocuments(
  source: ContentSource,
  options: ContentOptions,
  signal: AbortSignal,
): Promise<{ full: string; cutBytes: number }> {
  const { tab, connection } = source;
  const { frameTree } = await tab.send("Page.getFrameTree", undefined, { signal });
  const main = await readFrame(tab, frameTree.frame.id, { format: options.format, maxBytes: options.maxSize, signal });
  if (!options.includeIframes) return { full: main.text, cutBytes: main.cutBytes };
  const reader = new IframeReader(connection, {
    format: options.format,
    maxBytes: options.maxSize,
    signal,
    topOrigin: frameTree.frame.securityOrigin,
  });
  const frames = await reader.read(tab, frameTree);
  const block = options.format === "html" ? htmlBlock : textBlock;
  const cutBytes = (documents: FrameDocument[]): number =>
    documents.reduce((sum, frame) => sum + frame.cutBytes + cutBytes(frame.children), 0);
  return { full: main.text + frames.map(block).join(""), cutBytes: main.cutBytes + cutBytes(frames) };
}

/** The full content's UTF-8 byte length and, past `maxSize`, the content cut at the last whole character that fits. */
function cutToBytes(full: string, maxSize: number): { content: string; length: number; truncated?: true } {
  const cut = cutUtf8(full, maxSize);
  return cut.cut ? { content: cut.text, length: cut.bytes, truncated: true } : { content: full, length: cut.bytes };
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
