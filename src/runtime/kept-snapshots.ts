import { HubError } from "../errors.js";
import type { SnapshotNode } from "../protocol/types.js";
import type { AxLine } from "./ax-tree.js";

/** What decides which lines a snapshot has: a diff reads the page again the way the snapshot it compares with was read. */
export interface SnapshotShape {
  source: "chrome" | "dom";
  interestingOnly: boolean;
  interactiveOnly: boolean;
  maxDepth?: number;
  root?: string;
  compact: boolean;
}

/** What a snapshot leaves behind: its lines, for a later snapshot's diff; the text it answered, for the pages a cursor reads. */
export interface KeptSnapshot {
  snapshotId: string;
  lines: readonly AxLine[];
  text: string;
  url: string;
  title: string;
  /** The root node alone, without its children, as paged answers carry it. */
  rootNode: SnapshotNode;
  /** How it was read, so that a diff against it compares like with like. */
  shape: SnapshotShape;
}

/**
 * How many of a tab's snapshots are kept for cursors and diffs: enough that a person watching the tab (the dashboard)
 * or another connection taking its own snapshots does not end an agent's paging or diff.
 */
export const KEPT_SNAPSHOTS = 8;
/**
 * The most characters the kept snapshots of one tab hold together, their text and lines (each line's text twice, with
 * and without its ref, and about 40 more for the object): the latest is kept whatever its size, older ones within it.
 */
export const KEPT_SNAPSHOT_CHARS = 8_000_000;
const LINE_OVERHEAD_CHARS = 40;

/** A tab's latest snapshots, newest first, bounded by count and by size. */
export class KeptSnapshots {
  #kept: { snapshot: KeptSnapshot; chars: number }[] = [];

  /** Keeps `snapshot` as the newest, dropping the oldest past the bounds. */
  add(snapshot: KeptSnapshot): void {
    let chars = snapshot.text.length;
    for (const line of snapshot.lines) chars += line.text.length + line.bare.length + LINE_OVERHEAD_CHARS;
    this.#kept.unshift({ snapshot, chars });
    let total = 0;
    const within = this.#kept.findIndex((kept, index) => {
      total += kept.chars;
      return index >= KEPT_SNAPSHOTS || (index > 0 && total > KEPT_SNAPSHOT_CHARS);
    });
    if (within !== -1) this.#kept.length = within;
  }

  /** The kept snapshot `snapshotId`, or INVALID_PARAMS naming the param (`/cursor`, `/diff`) that named one no longer kept. */
  get(snapshotId: string, param: "cursor" | "diff"): KeptSnapshot {
    const kept = this.#kept.find((each) => each.snapshot.snapshotId === snapshotId);
    if (kept) return kept.snapshot;
    const what = param === "cursor" ? "the cursor's snapshot" : "diff names a snapshot that";
    throw new HubError(
      "INVALID_PARAMS",
      `invalid params for snapshot: ${what} is not one of the tab's last ${KEPT_SNAPSHOTS} snapshots (or the tab navigated since); take a new snapshot`,
      { errors: [{ path: `/${param}`, message: "is not a snapshot the tab keeps" }] },
    );
  }

  /** Forgets them all (the page they showed is gone). */
  clear(): void {
    this.#kept = [];
  }
}
