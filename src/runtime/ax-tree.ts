import type { Protocol } from "devtools-protocol";
import type { SnapshotNode } from "../protocol/types.js";

/** Where a tree's refs come from: the tab's refs, which name an element by the same ref in every snapshot. */
export interface RefSource {
  /** The node's ref, handed out now when it has none. */
  refOf(address: NodeAddress | null): string;
  /** The node's ref, if it has one. */
  existing(address: NodeAddress): string | undefined;
}

/** How to shape the tree: which nodes to keep, from where, how deep to go, and where refs come from. */
export interface AxTreeOptions {
  interestingOnly: boolean;
  /** Only what can be clicked, typed or selected, with the headings and labels that name them. */
  interactiveOnly?: boolean;
  maxDepth?: number;
  refs: RefSource;
  /** The ref of the element whose subtree alone to return. */
  root?: string;
  /** The most nodes the tree keeps (MAX_SNAPSHOT_NODES unless given); past them it is `truncated`. */
  maxNodes?: number;
}

/**
 * The most nodes a snapshot keeps: five times the bench's 5,000-element page. A page of hundreds of thousands of
 * elements read whole held the hub's event loop for seconds (and every other client's answers with it).
 */
export const MAX_SNAPSHOT_NODES = 50_000;

/**
 * The DOM node a ref names, and the cross-site frame whose process holds it (none: the tab's) with the loaderId of
 * that frame's document: by its backendDOMNodeId (Chrome's tree), or by the id the hub's page script gave it in an
 * isolated world (`source: "dom"`).
 */
export type NodeAddress = ({ backendNodeId: number } | { pageNode: number; contextId: number }) & {
  remoteFrame?: string;
  document?: string;
};

/** An accessibility node as a snapshot reads it, with the DOM node it names when that is not its backendDOMNodeId in the tab's process. */
export type SnapshotAxNode = Protocol.Accessibility.AXNode & { address?: NodeAddress };

/** A key naming one DOM node within a snapshot (boxes are found by it). */
export function addressKey(address: NodeAddress): string {
  const where = address.remoteFrame ?? "";
  return "backendNodeId" in address ? `${where}/${address.backendNodeId}` : `${where}/${address.contextId}.${address.pageNode}`;
}

/** One line of the text, and as diff compares it: the DOM node it names (its ref; null for none) and the line without its ref or indent. */
export interface AxLine {
  node: string | null;
  depth: number;
  bare: string;
  text: string;
}

/** The tree, its text form, and every ref it shows with the DOM node it names (null when it has none). */
export interface AxTree {
  root: SnapshotNode;
  text: string;
  refs: Map<string, NodeAddress | null>;
  lines: AxLine[];
  /** Nodes were left out past the node cap. */
  truncated: boolean;
}

type AxNode = SnapshotAxNode;

const EMPTY_ROOT: AxNode = { nodeId: "", ignored: false, role: { type: "internalRole", value: "RootWebArea" } };
const WRAPPER_ROLES = new Set(["generic", "none"]);
// Chrome's own layout pieces: a text run of its StaticText parent, and a list bullet.
const NOISE_ROLES = new Set(["InlineTextBox", "ListMarker"]);
// What a user can act on, and what names it, for interactiveOnly.
const INTERACTIVE_ROLES = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "switch",
  "combobox",
  "listbox",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "slider",
  "spinbutton",
  "treeitem",
  "textField",
  "TextField",
  "PopUpButton",
  "ComboBoxGrouping",
  "ComboBoxMenuButton",
  "DisclosureTriangle",
]);
const NAMING_ROLES = new Set(["heading", "LabelText", "dialog", "alertdialog", "form", "navigation", "main"]);

/** Builds the snapshot tree and its text from Accessibility.getFullAXTree nodes in one pass over the nodes. */
export function buildAxTree(nodes: readonly AxNode[], options: AxTreeOptions): AxTree {
  const byId = new Map<string, AxNode>();
  for (const node of nodes) byId.set(node.nodeId, node);
  // The root is never dropped: a page always answers with one tree, however bare.
  const wanted = options.root;
  const top =
    (wanted === undefined
      ? nodes.find((node) => node.parentId === undefined || !byId.has(node.parentId))
      : nodes.find((node) => isRef(node, wanted, options.refs))) ?? EMPTY_ROOT;
  const builder = new TreeBuilder(byId, options);
  const root = builder.keep(top, 0);
  builder.addChildren(top, root, 1);
  // The lines are written when asked: a compact snapshot writes its own from the tree (snapshot-compact.ts).
  const { kept, refs, truncated } = builder;
  let lines: AxLine[] | undefined;
  const linesOf = (): AxLine[] =>
    (lines ??= kept.map(({ out, depth, node }) => ({ text: textLine(out, depth), bare: bareLine(out), depth, node })));
  return {
    root,
    get text() {
      return linesOf()
        .map((line) => line.text)
        .join("\n");
    },
    refs,
    get lines() {
      return linesOf();
    },
    truncated,
  };
}

/** A node the tree kept, at its depth, with the ref of the DOM node it names (null for none). */
interface Kept {
  out: SnapshotNode;
  depth: number;
  node: string | null;
}

/** Walks the AX nodes depth first, lifting the children of dropped nodes into the nearest kept ancestor. */
class TreeBuilder {
  readonly kept: Kept[] = [];
  readonly refs = new Map<string, NodeAddress | null>();
  truncated = false;
  #byId: ReadonlyMap<string, AxNode>;
  #options: AxTreeOptions;

  constructor(byId: ReadonlyMap<string, AxNode>, options: AxTreeOptions) {
    this.#byId = byId;
    this.#options = options;
  }

  /** Makes the output node for `node` at `depth`: its ref, remembering the DOM node it names. */
  keep(node: AxNode, depth: number): SnapshotNode {
    const address = addressOf(node);
    const ref = this.#options.refs.refOf(address);
    this.refs.set(ref, address);
    const out: SnapshotNode = { ref, role: roleOf(node), name: nameOf(node) };
    const value = valueOf(node);
    if (value !== undefined) out.value = value;
    this.kept.push({ out, depth, node: address && ref });
    return out;
  }

  /** Adds the kept descendants of `node` under `parent`, `depth` being the depth of parent's children. */
  addChildren(node: AxNode, parent: SnapshotNode, depth: number): void {
    for (const childId of node.childIds ?? []) {
      const child = this.#byId.get(childId);
      if (child) this.#add(child, parent, depth);
    }
  }

  #add(node: AxNode, parent: SnapshotNode, depth: number): void {
    if (this.#options.interactiveOnly && !isActionable(node)) {
      if (!NOISE_ROLES.has(roleOf(node))) this.addChildren(node, parent, depth);
      return;
    }
    if (this.#options.interestingOnly) {
      if (isNoise(node, parent)) return;
      if (isLifted(node)) {
        this.addChildren(node, parent, depth);
        return;
      }
    }
    if (this.#options.maxDepth !== undefined && depth > this.#options.maxDepth) return;
    if (this.kept.length >= (this.#options.maxNodes ?? MAX_SNAPSHOT_NODES)) {
      this.truncated = true;
      return;
    }
    const out = this.keep(node, depth);
    (parent.children ??= []).push(out);
    this.addChildren(node, out, depth + 1);
  }
}

/** Whether an interactive-only snapshot keeps the node: what can be acted on, and headings and labels that name it. */
function isActionable(node: AxNode): boolean {
  if (node.ignored) return false;
  const role = roleOf(node);
  return INTERACTIVE_ROLES.has(role) || (NAMING_ROLES.has(role) && nameOf(node) !== "");
}

/** Whether an interesting-only snapshot leaves the node out with its subtree: Chrome's layout pieces and repeated text. */
function isNoise(node: AxNode, parent: SnapshotNode): boolean {
  const role = roleOf(node);
  if (NOISE_ROLES.has(role)) return true;
  if (role !== "StaticText" || node.ignored) return false;
  const name = nameOf(node);
  return name === parent.name || (parent.value !== undefined && name === String(parent.value));
}

/** Whether an interesting-only snapshot replaces the node by its children: ignored nodes and unnamed wrappers. */
function isLifted(node: AxNode): boolean {
  return node.ignored || (WRAPPER_ROLES.has(roleOf(node)) && nameOf(node) === "");
}

function isRef(node: AxNode, ref: string, refs: RefSource): boolean {
  const address = addressOf(node);
  return address !== null && refs.existing(address) === ref;
}

function addressOf(node: AxNode): NodeAddress | null {
  if (node.address) return node.address;
  return node.backendDOMNodeId === undefined ? null : { backendNodeId: node.backendDOMNodeId };
}

function roleOf(node: AxNode): string {
  const role: unknown = node.role?.value;
  return typeof role === "string" && role !== "" ? role : "none";
}

function nameOf(node: AxNode): string {
  const name: unknown = node.name?.value;
  return typeof name === "string" ? name : "";
}

function valueOf(node: AxNode): string | number | boolean | undefined {
  const value: unknown = node.value?.value;
  if (typeof value === "string") return value === "" ? undefined : value;
  return typeof value === "number" || typeof value === "boolean" ? value : undefined;
}

/** One line of the text form: `- button "Submit" [ref=e12]`, two spaces per level, `: value` when it has one. */
export function textLine(node: SnapshotNode, depth: number): string {
  const name = node.name === "" ? "" : ` ${JSON.stringify(node.name)}`;
  const value = node.value === undefined ? "" : `: ${JSON.stringify(node.value)}`;
  return `${"  ".repeat(depth)}- ${node.role}${name} [ref=${node.ref}]${value}`;
}

/** A line as a diff compares it: `button "Submit"`, without its dash, indent or ref. */
function bareLine(node: SnapshotNode): string {
  const name = node.name === "" ? "" : ` ${JSON.stringify(node.name)}`;
  const value = node.value === undefined ? "" : `: ${JSON.stringify(node.value)}`;
  return `${node.role}${name}${value}`;
}
