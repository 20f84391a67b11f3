import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { hash } from "node:crypto";

/** The `prev` of the first line of a chain: no line came before it. */
export const CHAIN_START = "0".repeat(64);
const HASH = /^[0-9a-f]{64}$/;
// A line of audit.log is a few hundred bytes; the last one is looked for in this much of the file's end.
const TAIL_BYTES = 64 * 1024;

/** What the next line of a chain carries: the SHA-256 of a line's text (without its newline), in hex. */
export function lineHash(line: string): string {
  // The one-shot hash: half the CPU of a Hash object per line, and a line is chained for most calls a hub runs.
  return hash("sha256", line, "hex");
}

/** An audit line chained to the one before: `{"prev":"<hash of the line before>", ...the entry's fields}`. */
export function chainedLine(prev: string, entryJson: string): string {
  return `{"prev":"${prev}",${entryJson.slice(1)}`;
}

/** The hash the next line of an existing file must carry (CHAIN_START for a new or empty file). */
export function chainHeadOf(filename: string): string {
  let fd: number;
  try {
    fd = openSync(filename, "r");
  } catch {
    return CHAIN_START;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer
      .toString("utf8")
      .split("\n")
      .filter((line) => line.length > 0);
    const last = lines.at(-1);
    return last === undefined ? CHAIN_START : lineHash(last);
  } finally {
    closeSync(fd);
  }
}

/** Where a chain breaks: the file and line (from 1), and why. */
export interface ChainBreak {
  file: string;
  line: number;
  why: string;
}

/**
 * Checks that the lines of the files, in the order given (oldest first), make one unbroken chain that starts at
 * `after` (CHAIN_START: the first line ever written): a line edited, removed, added or moved breaks it at the line
 * after. Returns the chain's head (the hash the next line would carry) and the line count, or where it breaks.
 */
export function verifyChain(
  files: { name: string; text: string }[],
  after = CHAIN_START,
): { ok: true; lines: number; head: string } | ({ ok: false } & ChainBreak) {
  let prev = after;
  let count = 0;
  for (const { name, text } of files) {
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    for (const [index, line] of lines.entries()) {
      const at = { file: name, line: index + 1 };
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        return { ok: false, ...at, why: "the line is not JSON" };
      }
      const given = typeof entry === "object" && entry !== null ? (entry as { prev?: unknown }).prev : undefined;
      if (typeof given !== "string" || !HASH.test(given)) return { ok: false, ...at, why: "the line has no chain hash (prev)" };
      if (given !== prev) {
        const why =
          count === 0
            ? "the first line does not start the chain: lines before it were removed, or give the older files first (or --after)"
            : "the line does not follow the one before it: that line was edited, or lines between them were removed or added";
        return { ok: false, ...at, why };
      }
      prev = lineHash(line);
      count++;
    }
  }
  return { ok: true, lines: count, head: prev };
}
