import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import type { NodeAddress } from "./ax-tree.js";
import { KeptSnapshots } from "./kept-snapshots.js";
import { NodeIndex } from "./node-index.js";

/** A ref and the element it names: by Chrome's backendNodeId, by the id the hub's page script gave it, or both. */
interface RefRecord {
  ref: string;
  /** The process and document the element lives in: "" for the tab's own process, else the cross-site frame and its document. */
  scope: string;
  remoteFrame?: string;
  document?: string;
  backendNodeId?: number;
  world?: { contextId: number; pageNode: number };
  /** Whether it names no DOM node (an accessibility node of Chrome's own). */
  isNodeless?: boolean;
  /** The snapshot that last showed it, to drop the longest unseen first past MAX_REFS. */
  seen: number;
}

/**
 * The most refs a tab keeps: twice what one snapshot hands out at most (MAX_SNAPSHOT_NODES). Past it, the refs no
 * snapshot showed for longest are dropped down to three quarters of it, so a page that churns elements stays bounded.
 */
export const MAX_REFS = 100_000;

const REF = /^e(\d{1,15})$/;

/** A node as the hub's page script knows it: its id in the world it was read in. */
export type WorldAddress = Extract<NodeAddress, { pageNode: number }>;

/**
 * The refs of one tab: a ref names one element for as long as that element lives in its document, whoever took the
 * snapshot and from whichever source, so that one caller's snapshot never breaks another's refs. An element seen by
 * Chrome's tree is known by its backendNodeId (unique in its renderer process), one read by the hub's page script by
 * the id that script gave it in its world; the two are linked when both sources have seen the element. Numbers are
 * never handed out twice on the tab, so a ref that is gone stays unknown rather than naming another element.
 */
export class RefRegistry {
  /** The tab's recent snapshots, for cursors and diffs. */
  readonly snapshots = new KeptSnapshots();
  #next: number;
  /** Refs below it were handed out by an earlier session of the tab, whose refs the hub forgot. */
  readonly #reattachedBelow: number;
  /** Refs below it were handed out before the tab's main frame last navigated. */
  #navigatedBelow: number;
  #generation = 0;
  #byRef = new Map<string, RefRecord>();
  #byNode = new NodeIndex<RefRecord>();
  #worldOnly = 0;
  #backendOnly = 0;

  /** Starts numbering at `firstNumber`: past the numbers an earlier session of the tab handed out. */
  constructor(firstNumber = 1) {
    this.#next = firstNumber;
    this.#reattachedBelow = firstNumber;
    this.#navigatedBelow = firstNumber;
  }

  /** The number the next new ref gets. */
  get nextNumber(): number {
    return this.#next;
  }

  /** Starts a snapshot: refs it shows count as seen now. */
  beginSnapshot(): void {
    this.#generation++;
  }

  /** Whether some refs are known only by their page-script id (a `chrome` snapshot links them first). */
  get hasWorldOnly(): boolean {
    return this.#worldOnly > 0;
  }

  /** Whether some refs are known only by their backendNodeId (a `dom` snapshot links new elements first). */
  get hasBackendOnly(): boolean {
    return this.#backendOnly > 0;
  }

  /** The ref that names the node at `address`, handing out a new one when it has none; a node with no DOM node gets a fresh one. */
  refOf(address: NodeAddress | null): string {
    const known = address === null ? undefined : this.#find(address);
    if (known) {
      known.seen = this.#generation;
      return known.ref;
    }
    const record: RefRecord = { ref: `e${this.#next++}`, scope: address ? scopeOf(address) : "", seen: this.#generation };
    if (address) {
      if (address.remoteFrame !== undefined) record.remoteFrame = address.remoteFrame;
      if (address.document !== undefined) record.document = address.document;
      if ("backendNodeId" in address) record.backendNodeId = address.backendNodeId;
      else record.world = { contextId: address.contextId, pageNode: address.pageNode };
    } else record.isNodeless = true;
    this.#add(record);
    if (this.#byRef.size > MAX_REFS) this.#prune();
    return record.ref;
  }

  /** The ref the node at `address` already has, without handing out one. */
  existing(address: NodeAddress): string | undefined {
    return this.#find(address)?.ref;
  }

  /** Records that the node the page script knows at `world` is the node Chrome knows by `backendNodeId`. */
  link(world: WorldAddress, backendNodeId: number): void {
    const scope = scopeOf(world);
    const byWorld = this.#byNode.get(scope, world);
    const byBackend = this.#byNode.get(scope, { backendNodeId });
    if (byWorld && byBackend) return;
    if (byWorld) this.#attach(byWorld, { backendNodeId });
    else if (byBackend) this.#attach(byBackend, { world: { contextId: world.contextId, pageNode: world.pageNode } });
    else {
      this.refOf(world);
      const made = this.#byNode.get(scope, world);
      if (made) this.#attach(made, { backendNodeId });
    }
  }

  /** The refs known only by their page-script id, with where to find them. */
  worldOnly(): WorldAddress[] {
    const found: WorldAddress[] = [];
    for (const record of this.#byRef.values()) {
      if (record.world && record.backendNodeId === undefined) found.push({ ...where(record), ...record.world });
    }
    return found;
  }

  /** The node a ref names, or NODE_NOT_FOUND saying why it names none. */
  node(ref: string): NodeAddress {
    const record = this.#byRef.get(ref);
    if (!record) throw notFound(`ref ${ref} ${this.#whyUnknown(ref)}`);
    if (record.isNodeless) throw notFound(`ref ${ref} names an accessibility node that has no DOM node`);
    if (record.backendNodeId !== undefined) return { ...where(record), backendNodeId: record.backendNodeId };
    return { ...where(record), ...(record.world as { contextId: number; pageNode: number }) };
  }

  /** Forgets the ref of a node that left its document. */
  forget(address: NodeAddress): void {
    const record = this.#find(address);
    if (record) this.#remove(record);
  }

  /** Forgets every ref and snapshot (the tab's main frame navigated: a new document, new elements); numbering goes on. */
  clear(): void {
    this.#byRef.clear();
    this.#byNode.clear();
    this.#worldOnly = 0;
    this.#backendOnly = 0;
    this.#navigatedBelow = this.#next;
    this.snapshots.clear();
  }

  /** How many refs the tab holds. */
  get size(): number {
    return this.#byRef.size;
  }

  #whyUnknown(ref: string): string {
    const number = Number(REF.exec(ref)?.[1] ?? Number.NaN);
    if (!(number < this.#next)) return "was never handed out on this tab";
    if (number < this.#reattachedBelow) return "was handed out before the hub re-attached to this tab (its refs were forgotten)";
    if (number < this.#navigatedBelow) return "names an element of a page this tab has left (it navigated since)";
    return "names an element that is gone from its page (removed, or its frame navigated)";
  }

  #find(address: NodeAddress): RefRecord | undefined {
    return this.#byNode.get(scopeOf(address), address);
  }

  #add(record: RefRecord): void {
    this.#byRef.set(record.ref, record);
    if (record.backendNodeId !== undefined) this.#byNode.set(record.scope, { backendNodeId: record.backendNodeId }, record);
    if (record.world) this.#byNode.set(record.scope, record.world, record);
    this.#count(record, 1);
  }

  #attach(record: RefRecord, key: { backendNodeId: number } | { world: { contextId: number; pageNode: number } }): void {
    this.#count(record, -1);
    if ("backendNodeId" in key) {
      record.backendNodeId = key.backendNodeId;
      this.#byNode.set(record.scope, key, record);
    } else {
      record.world = key.world;
      this.#byNode.set(record.scope, key.world, record);
    }
    this.#count(record, 1);
  }

  #remove(record: RefRecord): void {
    this.#byRef.delete(record.ref);
    if (record.backendNodeId !== undefined) this.#byNode.delete(record.scope, { backendNodeId: record.backendNodeId });
    if (record.world) this.#byNode.delete(record.scope, record.world);
    this.#count(record, -1);
  }

  #count(record: RefRecord, by: 1 | -1): void {
    if (record.world && record.backendNodeId === undefined) this.#worldOnly += by;
    if (!record.world && record.backendNodeId !== undefined) this.#backendOnly += by;
  }

  #prune(): void {
    // The sort is stable and the map is in the order refs were handed out: among refs last seen by one snapshot (or
    // only by actions), the oldest go first, so a prune always makes room and the next one is MAX_REFS / 4 refs away.
    const records = [...this.#byRef.values()].sort((a, b) => a.seen - b.seen);
    const excess = records.length - Math.floor((MAX_REFS * 3) / 4);
    for (const record of records.slice(0, Math.max(0, excess))) this.#remove(record);
  }
}

const registries = new WeakMap<TabSession, RefRegistry>();

/** How many tabs' next ref numbers are remembered after their session closed; past it the oldest are forgotten. */
const MAX_TABS_NUMBERED = 10_000;
/** The next ref number of tabs whose session closed (the pool recycled it, or the tab went), by tabId. */
const nextNumbers = new Map<string, number>();

/**
 * The tab's refs, made on first use and cleared whenever the tab's main frame navigates. A new session of a tab (the
 * pool recycled the last one) numbers on from where the last left off, so an old ref is unknown, not another element.
 */
export function refRegistryOf(tab: TabSession): RefRegistry {
  let registry = registries.get(tab);
  if (!registry) {
    const created = new RefRegistry(nextNumbers.get(tab.tabId) ?? 1);
    nextNumbers.delete(tab.tabId);
    // Lives as long as the session: the session drops its listeners when it closes.
    tab.onNavigated(() => created.clear());
    tab.cdp.once("closed", () => {
      nextNumbers.set(tab.tabId, created.nextNumber);
      if (nextNumbers.size > MAX_TABS_NUMBERED) nextNumbers.delete(nextNumbers.keys().next().value as string);
    });
    registries.set(tab, created);
    registry = created;
  }
  return registry;
}

/** Where a node lives: "" for the tab's own process, else its cross-site frame and that frame's document. */
function scopeOf(address: NodeAddress): string {
  return address.remoteFrame === undefined ? "" : `${address.remoteFrame}@${address.document ?? ""}`;
}

function where(record: RefRecord): { remoteFrame?: string; document?: string } {
  return {
    ...(record.remoteFrame === undefined ? {} : { remoteFrame: record.remoteFrame }),
    ...(record.document === undefined ? {} : { document: record.document }),
  };
}

function notFound(what: string): HubError {
  return new HubError("NODE_NOT_FOUND", `${what}; take a new snapshot and use its refs`);
}
