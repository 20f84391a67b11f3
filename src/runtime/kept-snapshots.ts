import { HubError } from "../errors.js";
import type { SnapshotNode } from "../protocol/types.js";
import type { AxLine } from "./ax-tree.js";

/** What a snapshot leaves behind: its lines, for a later snapshot's diff; the text it answered, for the pages a cursor reads. */
export interface KeptSnapshot {
  snapshotId: string;
  lines: readonly AxLine[];
  text: string;
  url: string;
  title: string;
  /** The root node alone, without its children, as paged answers carry it. */
  rootNode: SnapshotNode;
}

/**
 * How many of a tab's snapshots are kept for cursors and diffs: enough that a person watching the tab (the dashboard)
 * or another connection taking its own snapshots does not end an agent's paging or diff.
 */
export const KEPT_SNAPSHOTS = 8;
/** The most text the kept snapshots of one tab hold together (the latest is kept whatever its size). */
export const KEPT_SNAPSHOT_CHARS = 8_000_000;

/** A tab's latest snapshots, newest first, bounded by count and by text. */
export class KeptSnapshots {
  #kept: KeptSnapshot[] = [];

  /** Keeps `snapshot` as the newest, dropping the oldest past the bounds. */
  add(snapshot: KeptSnapshot): void {
    this.#kept.unshift(snapshot);
    let chars = 0;
    const within = this.#kept.findIndex((kept, index) => {
      chars += kept.text.length + kept.lines.length * 40;
      return index >= KEPT_SNAPSHOTS || (index > 0 && chars > KEPT_SNAPSHOT_CHARS);
    });
    if (within !== -1) this.#kept.length = within;
  }

  /** The kept snapshot `snapshotId`, or INVALID_PARAMS naming the param (`/cursor`, `/diff`) that named one no longer kept. */
  get(snapshotId: string, param: "cursor" | "diff"): KeptSnapshot {
    const kept = this.#kept.find((snapshot) => snapshot.snapshotId === snapshotId);
    if (kept) return kept;
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
