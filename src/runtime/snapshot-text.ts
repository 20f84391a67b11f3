import { HubError } from "../errors.js";
import type { AxLine } from "./ax-tree.js";

/** One page of a snapshot's text: whole lines, at most `maxChars` of them (a longer line alone), and where the rest begins. */
export function pageOf(text: string, from: number, maxChars: number): { text: string; next: number | null } {
  if (from >= text.length) return { text: "", next: null };
  let end = from;
  for (;;) {
    const newline = text.indexOf("\n", end);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    if (end > from && lineEnd - from > maxChars) break;
    end = lineEnd;
    if (end >= text.length || end - from >= maxChars) break;
  }
  return { text: text.slice(from, end), next: end >= text.length ? null : end };
}

/** A cursor names a snapshot and where its next page begins. */
export function cursorOf(snapshotId: string, offset: number): string {
  return `${snapshotId}:${offset}`;
}

/** Reads a cursor; INVALID_PARAMS for one that is not a cursor the hub gave out. */
export function readCursor(cursor: string): { snapshotId: string; offset: number } {
  const match = /^([0-9a-f-]{36}):(\d{1,12})$/.exec(cursor);
  if (!match) {
    throw new HubError("INVALID_PARAMS", "invalid params for snapshot: cursor is not one a snapshot gave (nextCursor)", {
      errors: [{ path: "/cursor", message: "is not a nextCursor of this hub" }],
    });
  }
  return { snapshotId: match[1] as string, offset: Number(match[2]) };
}

/**
 * What changed between two snapshots, as lines: `+ ` for a node that is new, `~ ` for one whose role, name or value
 * changed, both in the new tree's order with their new refs, then `- ` for each node that went (its old line).
 * Nodes are matched by the DOM node they name; nodes that name none, by their line.
 */
export function diffLines(before: readonly AxLine[], after: readonly AxLine[]): string {
  const keyOf = (line: AxLine): string => (line.node === null ? `line:${line.depth}:${line.bare}` : `node:${line.node}`);
  const old = new Map<string, AxLine>();
  for (const line of before) old.set(keyOf(line), line);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const line of after) {
    const key = keyOf(line);
    seen.add(key);
    const was = old.get(key);
    // The line as the snapshot writes it, without its indent and its "- ".
    const written = line.text.trimStart().slice(2);
    if (!was) out.push(`+ ${written}`);
    else if (was.bare !== line.bare) out.push(`~ ${written}`);
  }
  for (const line of before) if (!seen.has(keyOf(line))) out.push(`- ${line.bare}`);
  return out.join("\n");
}
