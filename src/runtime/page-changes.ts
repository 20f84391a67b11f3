import type { Budget } from "../budget.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import type { TabSession } from "../cdp/tab-session.js";
import { MAX_SNAPSHOT_NODES, textLine } from "./ax-tree.js";
import { linkNewWorldNodes } from "./ref-links.js";
import { refRegistryOf, type WorldAddress } from "./ref-registry.js";
import { inSnapshotWorld } from "./snapshot-world.js";
import { runWorldScript } from "./world-scripts.js";

/** The most lines of page changes an action answers. */
export const MAX_CHANGE_LINES = 40;
/** The most characters of page changes an action answers, all lines together. */
export const MAX_CHANGE_CHARS = 3_000;
/** The most characters of one line; a longer one is cut and ends with "…". */
export const MAX_CHANGE_LINE_CHARS = 200;
/** How long after a navigation an action waits for the new document to be parsed, for its title. */
export const NAVIGATION_SETTLE_MS = 2_000;
// The page script answers more nodes than lines are written: some are left out as a snapshot leaves them out.
const MAX_ENTRIES = MAX_CHANGE_LINES * 4;
const CHANGED_FIELDS = 7;
const GONE_FIELDS = 5;
const KEY_SEPARATOR = "\u0001";

/** What an action changed on the page: its URL and title when they changed, the lines of its tree that changed. */
export interface PageChanges {
  url?: string;
  title?: string;
  diff?: string;
  truncated?: true;
}

/** What the page script answers when the watch ends (see TAKE_CHANGES in dom-change-script.ts). */
interface Taken {
  url: string;
  title: string;
  changed?: (string | number | null)[];
  gone?: (string | number | null)[];
  truncated?: true;
}

/** A line the page script answered, before the hub writes it. */
interface Entry {
  status: string;
  role: string;
  name: string;
  value: string | number | null;
  parent: { name: string; value: string | number | null };
}

/**
 * Watches a tab's page while an action runs (in the hub's snapshot world, where page scripts cannot see it) and
 * answers what the action changed: the URL and title when they changed, and the lines of the page's accessibility
 * tree that changed, written as a snapshot's diff writes them, with the tab's refs.
 */
export class ChangeWatch {
  readonly #tab: TabSession;
  readonly #before: { url: string; title: string };

  private constructor(tab: TabSession, before: { url: string; title: string }) {
    this.#tab = tab;
    this.#before = before;
  }

  /** Starts watching the tab's page; null when it cannot be watched (its document is being replaced, or a dialog holds it). */
  static async arm(tab: TabSession, budget: Budget): Promise<ChangeWatch | null> {
    // A dialog left open holds the page: the watch would wait for dialog.handle, and the action with it.
    if (tab.openDialog) return null;
    const armed = await inMainWorld<{ url: string; title: string }>(tab, { script: "arm", args: [MAX_SNAPSHOT_NODES] }, budget).catch(
      (error: unknown) => (isContextGone(error) ? null : Promise.reject(error)),
    );
    return armed && new ChangeWatch(tab, armed.value);
  }

  /** Ends the watch: what changed, or undefined for nothing (or a page held by a dialog left open). */
  async take(budget: Budget, options: { dialogOpen: boolean }): Promise<PageChanges | undefined> {
    // A dialog left open holds the page: nothing runs there until dialog.handle.
    if (options.dialogOpen) return undefined;
    const take = { script: "take", args: [MAX_SNAPSHOT_NODES, MAX_ENTRIES, NAVIGATION_SETTLE_MS] } as const;
    const read = (): Promise<{ value: Taken; contextId: number } | null> =>
      inMainWorld<Taken>(this.#tab, take, budget).catch((error: unknown) =>
        // The document was replaced while it was read: what it changed is no longer there to tell.
        isContextGone(error) ? null : Promise.reject(error),
      );
    const taken = this.#tab.dialogPolicy === "manual" ? await unlessDialogOpens(this.#tab, read) : await read();
    if (!taken) return undefined;
    const { value, contextId } = taken;
    const changes: PageChanges = {};
    if (value.url !== this.#before.url) changes.url = value.url;
    if (value.title !== this.#before.title) changes.title = value.title;
    const lines = await this.#lines(value, contextId, budget);
    if (lines.length > 0 || value.truncated) Object.assign(changes, bounded(lines, value.truncated === true));
    return Object.keys(changes).length > 0 ? changes : undefined;
  }

  /** The lines as a snapshot's diff writes them: `+` and `~` with the tab's refs, in the page's order, then `-`. */
  async #lines(taken: Taken, contextId: number, budget: Budget): Promise<string[]> {
    const registry = refRegistryOf(this.#tab);
    const changed = entries(taken.changed ?? [], CHANGED_FIELDS).filter(isShown);
    const at = (id: number): WorldAddress => ({ pageNode: id, contextId });
    const unknown = changed.map(({ id }) => at(id ?? 0)).filter((address) => registry.existing(address) === undefined);
    await linkNewWorldNodes(this.#tab, { registry, addresses: unknown }, budget);
    const lines = changed.map((entry) => `${entry.status} ${lineOf(entry, registry.refOf(at(entry.id ?? 0)))}`);
    for (const entry of entries(taken.gone ?? [], GONE_FIELDS)) {
      if (entry.id !== null) registry.forget(at(entry.id));
      if (isShown(entry)) lines.push(`- ${lineOf(entry, "").replace(" [ref=]", "")}`);
    }
    return lines;
  }
}

/**
 * What `reading` answers, or null as soon as a dialog opens: a dialog left open (DIALOG_POLICY=manual) holds the page
 * until dialog.handle, and the read with it, so the action answers without what it changed rather than waiting.
 */
async function unlessDialogOpens<T>(tab: TabSession, read: () => Promise<T | null>): Promise<T | null> {
  let stop: () => void = () => {};
  const opened = new Promise<null>((resolve) => {
    stop = tab.listen("Page.javascriptDialogOpening", () => resolve(null));
  });
  // One that opened after the action's input and before this listener is open already.
  const reading = tab.openDialog ? Promise.resolve(null) : read();
  try {
    return await Promise.race([reading, opened]);
  } finally {
    stop();
    // Left behind, the read ends when the dialog is answered or the budget ends; nobody waits for it.
    reading.catch(() => {});
  }
}

/** Runs one of the change scripts in the hub's world of the tab's main frame: its value, and that world's context. */
async function inMainWorld<T>(
  tab: TabSession,
  call: { script: "arm" | "take"; args: readonly number[] },
  budget: Budget,
): Promise<{ value: T; contextId: number } | null> {
  return inSnapshotWorld(tab, { frameId: tab.tabId, budget }, async (contextId) => {
    const world = { frameId: tab.tabId, contextId, budget, what: "the hub's watch of what an action changed" };
    const { result, exceptionDetails } = await runWorldScript(tab, world, call);
    return exceptionDetails ? null : { value: result.value as T, contextId };
  });
}

/** The page script's flat answer as entries: `changed` rows of seven fields, `gone` rows of five. */
function entries(flat: readonly (string | number | null)[], fields: number): (Entry & { id: number | null })[] {
  const out: (Entry & { id: number | null })[] = [];
  for (let at = 0; at + fields <= flat.length; at += fields) {
    const row = flat.slice(at, at + fields);
    if (fields === CHANGED_FIELDS) {
      const [status, role, name, value, id, parentName, parentValue] = row as [
        string,
        string,
        string,
        string | number | null,
        number,
        string,
        string | number | null,
      ];
      out.push({ status, role, name, value, id, parent: { name: parentName, value: parentValue } });
    } else {
      const [role, name, value, id, parentKey] = row as [string, string, string | null, number | null, string];
      const [, parentName = "", parentValue = ""] = parentKey.split(KEY_SEPARATOR);
      out.push({ status: "-", role, name, value, id, parent: { name: parentName, value: parentValue === "" ? null : parentValue } });
    }
  }
  return out;
}

/** Whether a snapshot (interestingOnly) shows the node: not an unnamed wrapper, not text repeating its parent's name or value. */
function isShown(entry: Entry): boolean {
  if ((entry.role === "generic" || entry.role === "none") && entry.name === "") return false;
  if (entry.role !== "StaticText") return true;
  const { parent } = entry;
  return entry.name !== parent.name && (parent.value === null || entry.name !== String(parent.value));
}

function lineOf(entry: Entry, ref: string): string {
  return textLine({ ref, role: entry.role, name: entry.name, ...(entry.value === null ? {} : { value: entry.value }) }, 0).slice(2);
}

/** The lines within MAX_CHANGE_LINES and MAX_CHANGE_CHARS, each within MAX_CHANGE_LINE_CHARS; `truncated` when any was cut. */
function bounded(lines: readonly string[], isCut: boolean): Pick<PageChanges, "diff" | "truncated"> {
  const kept: string[] = [];
  let chars = 0;
  let truncated = isCut;
  for (const whole of lines) {
    const line = whole.length > MAX_CHANGE_LINE_CHARS ? `${whole.slice(0, MAX_CHANGE_LINE_CHARS - 1)}…` : whole;
    if (line !== whole) truncated = true;
    if (kept.length >= MAX_CHANGE_LINES || chars + line.length + 1 > MAX_CHANGE_CHARS) {
      truncated = true;
      break;
    }
    kept.push(line);
    chars += line.length + 1;
  }
  return { ...(kept.length > 0 ? { diff: kept.join("\n") } : {}), ...(truncated ? { truncated: true as const } : {}) };
}
