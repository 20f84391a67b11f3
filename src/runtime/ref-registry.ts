import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import type { SnapshotNode } from "../protocol/types.js";
import type { AxLine, NodeAddress } from "./ax-tree.js";

/**
 * What a snapshot leaves behind: its id, its refs and the DOM node each names (null for none) for callOn and the
 * actions; its lines, for the next snapshot's diff; and the text it answered, for the pages a cursor reads.
 */
export interface SnapshotRefs {
  snapshotId: string;
  firstRef: number;
  nextRef: number;
  refs: ReadonlyMap<string, NodeAddress | null>;
  lines: readonly AxLine[];
  text: string;
  url: string;
  title: string;
  /** The root node alone, without its children, as paged answers carry it. */
  rootNode: SnapshotNode;
}

const REF = /^e(\d{1,15})$/;

/**
 * The refs of a tab's latest snapshot. Ref numbers keep growing across snapshots of the session, so a ref of an
 * older snapshot is never handed out again for another node: it is unknown, not wrong.
 */
export class RefTable {
  #nextRef = 1;
  #latest: SnapshotRefs | null = null;

  /** The number the next snapshot's first ref gets. */
  get nextRef(): number {
    return this.#nextRef;
  }

  /** The latest snapshot of the tab, if it still stands (no navigation since). */
  get latest(): SnapshotRefs | null {
    return this.#latest;
  }

  /** Makes `snapshot` the latest: the refs of every earlier snapshot stop resolving. */
  replace(snapshot: SnapshotRefs): void {
    this.#latest = snapshot;
    this.#nextRef = Math.max(this.#nextRef, snapshot.nextRef);
  }

  /** Forgets the refs (the page they named is gone); numbering goes on so that old refs stay unknown. */
  clear(): void {
    this.#latest = null;
  }

  /** The DOM node a ref of the latest snapshot names, or NODE_NOT_FOUND saying what to do instead. */
  node(ref: string): NodeAddress {
    const latest = this.#latest;
    if (!latest)
      throw notFound(`this tab has no current snapshot (none was taken, or the tab navigated since), so ref ${ref} names nothing`);
    const node = latest.refs.get(ref);
    if (node === undefined) {
      const number = Number(REF.exec(ref)?.[1] ?? Number.NaN);
      const where =
        number < latest.firstRef ? "is from an older snapshot of this tab" : "was not handed out by the latest snapshot of this tab";
      throw notFound(`ref ${ref} ${where} (the latest is ${latest.snapshotId})`);
    }
    if (node === null) throw notFound(`ref ${ref} names an accessibility node that has no DOM node`);
    return node;
  }
}

const tables = new WeakMap<TabSession, RefTable>();

/** The tab's ref table, made on first use and cleared whenever the tab's main frame navigates. */
export function refTableOf(tab: TabSession): RefTable {
  let table = tables.get(tab);
  if (!table) {
    const created = new RefTable();
    // Lives as long as the session: the session drops its listeners when it closes.
    tab.onNavigated(() => created.clear());
    tables.set(tab, created);
    table = created;
  }
  return table;
}

function notFound(what: string): HubError {
  return new HubError("NODE_NOT_FOUND", `${what}; take a new snapshot and use its refs`);
}
