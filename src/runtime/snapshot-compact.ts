import type { SnapshotNode } from "../protocol/types.js";
import type { AxLine, NodeAddress } from "./ax-tree.js";

// Roles that structure text: their lines carry no ref (nothing to act on; the controls inside carry theirs).
const TEXT_STRUCTURE_ROLES = new Set([
  "row",
  "rowgroup",
  "cell",
  "columnheader",
  "rowheader",
  "listitem",
  "paragraph",
  "LabelText",
  "Legend",
  "caption",
  "generic",
  "none",
  "group",
  "strong",
  "emphasis",
  "code",
  "mark",
  "deletion",
  "insertion",
  "subscript",
  "superscript",
  "time",
  "term",
  "definition",
  "blockquote",
  "separator",
]);
// Unnamed, they only hold what is inside: one with a single child is replaced by it, one that holds only text is
// that text, one that holds nothing is left out.
const WRAPPER_ROLES = new Set([
  "LabelText",
  "listitem",
  "paragraph",
  "generic",
  "none",
  "group",
  "rowgroup",
  "Legend",
  "caption",
  "strong",
  "emphasis",
  "mark",
  "code",
  "time",
  "deletion",
  "insertion",
  "subscript",
  "superscript",
  "term",
  "definition",
]);
// Words set apart inside a sentence: with the text around them, they are written as one text. Two texts side by side
// are not (they may be two elements a page made clickable, each with its ref), nor are list items or paragraphs.
const PHRASE_ROLES = new Set(["strong", "emphasis", "mark", "code", "deletion", "insertion", "subscript", "superscript"]);
// Elements with no meaning of their own (div, span): a page may make one clickable, so a text one of them holds alone
// carries its ref, and so does loose text (Chrome's tree leaves out a div that holds only text, and its text stands in
// its place). Text a paragraph, list item, cell, label or heading holds, or a link's or control's, is read, not acted
// on: no ref (the element around it has its own where there is something to act on).
const CLICKABLE_TEXT_HOLDER_ROLES = new Set(["generic", "none"]);
// Unnamed, with one child, it only holds that child: the child stands in its place (a list of one item).
const SINGLE_CHILD_WRAPPER_ROLES = new Set(["list"]);
// A list whose items are each one of these alone (a menu, a footer's links) is written as one line, as a table row is.
const ONE_LINE_ITEM_ROLES = new Set(["link", "button"]);
// Chrome's own wrapper of a native select's options: its options stand in its place.
const TRANSPARENT_ROLES = new Set(["MenuListPopup"]);
const CELL_ROLES = new Set(["cell", "columnheader", "rowheader", "gridcell"]);
// What a label's text names: a text beside one of these, with its name, only repeats it.
const CONTROL_ROLES = new Set([
  "textbox",
  "searchbox",
  "combobox",
  "listbox",
  "checkbox",
  "radio",
  "switch",
  "slider",
  "spinbutton",
  "button",
]);
// Text inside one of these is theirs: it has no ref of its own.
const TEXT_HOLDING_ROLES = new Set([...TEXT_STRUCTURE_ROLES, ...CONTROL_ROLES, "heading", "link", "option", "menuitem", "tab"]);
// Their name, when their one child has it too (a heading that is a link), is left to the child's line.
const NAME_LEFT_TO_CHILD_ROLES = new Set(["heading", ...TEXT_STRUCTURE_ROLES]);

const NONE: readonly SnapshotNode[] = Object.freeze([]);

/** What a line says, and the same without refs (what a diff compares). */
interface Written {
  text: string;
  bare: string;
}

/** The children as lines: a node of its own, or a run of text (adjacent texts, and elements that hold only text). */
type Part = { node: SnapshotNode } | { text: string; nodes: SnapshotNode[] };

/**
 * The lines of a snapshot as a language model reads it (`compact`): refs only on elements that can be acted on or
 * referred to (not on text structure such as rows, cells, list items, paragraphs and labels, nor on a native select's
 * options), text as a quoted line (adjacent texts one line; a ref only where a page may have made it clickable:
 * loose text, or a div or span that holds it alone), text a node's name already says left out (a label's text beside
 * its field, a link's own words), an unnamed wrapper (or list) with one child replaced by that child and one with
 * nothing left out, and a table row whose cells hold text or one leaf each written as one line
 * (`- row: "Cell" | link "Open" [ref=e9]`), and so a list whose items are each a link or button alone
 * (`- list: link "Home" [ref=e3] | link "Shop" [ref=e5]`). The refs are the tree's own.
 */
export function compactLines(root: SnapshotNode, refs: ReadonlyMap<string, NodeAddress | null>): AxLine[] {
  const reader = new TreeReader();
  const lines: AxLine[] = [];
  const add = (named: SnapshotNode, depth: number, written: Written): void => {
    // As the full text's lines: a diff matches a line by the ref of the element it names.
    const node = refs.get(named.ref) ? named.ref : null;
    lines.push({ text: `${"  ".repeat(depth)}- ${written.text}`, bare: written.bare, depth, node });
  };
  const walk = (node: SnapshotNode, parent: SnapshotNode | null, depth: number): void => {
    const children = reader.kept(node);
    const only = children.length === 1 ? children[0] : undefined;
    if (only && parent && (isBareWrapper(node) || isLoneChildHolder(node))) return walk(only, parent, depth);
    const row = node.role === "row" ? rowLine(reader, children) : null;
    if (row) return add(node, depth, { text: `row: ${row.text}`, bare: `row: ${row.bare}` });
    const items = node.role === "list" && node.name === "" ? itemsLine(reader, children) : null;
    if (items) return add(node, depth, { text: `list: ${items.text}`, bare: `list: ${items.bare}` });
    const nameLeft = only !== undefined && node.name !== "" && only.name === node.name && NAME_LEFT_TO_CHILD_ROLES.has(node.role);
    add(node, depth, nodeLine(node, parent, nameLeft));
    for (const part of partsOf(reader, children)) {
      if ("node" in part) walk(part.node, node, depth + 1);
      else add(part.nodes[0] as SnapshotNode, depth + 1, textLine(part, node));
    }
  };
  walk(root, null, 0);
  return lines;
}

/** Reads each node's kept children and text once: the rules ask for them again from above. */
class TreeReader {
  #kept = new Map<SnapshotNode, readonly SnapshotNode[]>();
  #text = new Map<SnapshotNode, string | null>();

  /**
   * The children a model needs: a native select's popup replaced by its options; text that is blank or only repeats
   * the node's name or the name of a control beside it left out, and so is a wrapper that holds nothing; none at all
   * when the node's name says every word of them (a link's words, an image link's alt).
   */
  kept(node: SnapshotNode): readonly SnapshotNode[] {
    const known = this.#kept.get(node);
    if (known) return known;
    const kept = node.children === undefined ? NONE : this.#keep(node, this.#flat(node));
    this.#kept.set(node, kept);
    return kept;
  }

  /** The text a node only holds: a text's, or the texts of an unnamed wrapper that holds nothing else; null for any other. */
  text(node: SnapshotNode): string | null {
    if (node.role === "StaticText") return node.children === undefined ? node.name : null;
    if (!isBareWrapper(node)) return null;
    const known = this.#text.get(node);
    if (known !== undefined) return known;
    const texts = this.kept(node).map((child) => this.text(child));
    const text = texts.length > 0 && texts.every((each) => each !== null) ? texts.join(" ") : null;
    this.#text.set(node, text);
    return text;
  }

  // A snapshot reads every node's children: arrays and sets are made only where a rule needs them.
  #keep(node: SnapshotNode, children: readonly SnapshotNode[]): readonly SnapshotNode[] {
    let controls: Set<string> | undefined;
    for (const child of children) if (CONTROL_ROLES.has(child.role) && child.name !== "") (controls ??= new Set()).add(child.name);
    const kept = children.filter((child) => {
      if (isBareWrapper(child) && this.kept(child).length === 0) return false;
      const text = this.text(child)?.trim();
      return text === undefined || (text !== "" && text !== node.name && !controls?.has(text));
    });
    return kept.length === 0 || (node.name !== "" && this.#sayAll(node.name, kept)) ? NONE : kept;
  }

  #flat(node: SnapshotNode): readonly SnapshotNode[] {
    const children = node.children ?? NONE;
    if (!children.some((child) => TRANSPARENT_ROLES.has(child.role))) return children;
    return children.flatMap((child) => (TRANSPARENT_ROLES.has(child.role) ? this.#flat(child) : [child]));
  }

  /** Whether `name` is the children's words in order: their texts, and the alt of the images among them. */
  #sayAll(name: string, children: readonly SnapshotNode[]): boolean {
    const words: string[] = [];
    for (const child of children) {
      const text = this.text(child) ?? (child.role === "image" && child.children === undefined ? child.name : null);
      if (text === null) return false;
      words.push(text);
    }
    return squashed(words.join("")) === squashed(name);
  }
}

function squashed(text: string): string {
  return text.replace(/\s+/g, "");
}

function isBareWrapper(node: SnapshotNode): boolean {
  return WRAPPER_ROLES.has(node.role) && node.name === "" && node.value === undefined;
}

function isLoneChildHolder(node: SnapshotNode): boolean {
  return SINGLE_CHILD_WRAPPER_ROLES.has(node.role) && node.name === "" && node.value === undefined;
}

/** The children in order, a phrase (strong, code...) and the texts beside it joined into one run. */
function partsOf(reader: TreeReader, children: readonly SnapshotNode[]): Part[] {
  const parts: Part[] = [];
  for (const child of children) {
    const text = reader.text(child);
    const last = parts.at(-1);
    if (text === null) parts.push({ node: child });
    else if (last && "text" in last && joins(last.nodes.at(-1) as SnapshotNode, child)) {
      last.text += ` ${text}`;
      last.nodes.push(child);
    } else parts.push({ text, nodes: [child] });
  }
  return parts;
}

function joins(before: SnapshotNode, after: SnapshotNode): boolean {
  const isInline = (node: SnapshotNode): boolean => node.role === "StaticText" || PHRASE_ROLES.has(node.role);
  return isInline(before) && isInline(after) && (PHRASE_ROLES.has(before.role) || PHRASE_ROLES.has(after.role));
}

/**
 * A run of text as a quoted line: with the ref of its one node when a page may have made it clickable (a div or span
 * holding it alone, or loose text), none for text a paragraph, list item, cell, label, heading, link or control holds.
 */
function textLine({ text, nodes }: { text: string; nodes: readonly SnapshotNode[] }, parent: SnapshotNode): Written {
  const bare = JSON.stringify(text);
  const holder = nodes.length === 1 ? nodes[0] : undefined;
  const isLoose = holder?.role === "StaticText" && !TEXT_HOLDING_ROLES.has(parent.role);
  return { text: holder && (isLoose || CLICKABLE_TEXT_HOLDER_ROLES.has(holder.role)) ? `${bare} [ref=${holder.ref}]` : bare, bare };
}

/**
 * `role "name" [ref=e1]: value`: the ref left out for text structure and a native select's options, the name when
 * `nameLeft` (its one child's line says it).
 */
function nodeLine(node: SnapshotNode, parent: SnapshotNode | null, nameLeft = false): Written {
  const name = node.name === "" || nameLeft ? "" : ` ${JSON.stringify(node.name)}`;
  const value = node.value === undefined ? "" : `: ${JSON.stringify(node.value)}`;
  const isNativeOption = node.role === "option" && (parent?.role === "combobox" || parent?.role === "MenuListPopup");
  // A named group (a fieldset with its legend) is one a model can name, and read alone with root.
  const isStructure = TEXT_STRUCTURE_ROLES.has(node.role) && !(node.role === "group" && node.name !== "");
  const ref = isStructure || isNativeOption ? "" : ` [ref=${node.ref}]`;
  return { text: `${node.role}${name}${ref}${value}`, bare: `${node.role}${name}${value}` };
}

/** A row as one line, its cells by `|`: each cell its text, or its one leaf child; null when a cell holds more. */
function rowLine(reader: TreeReader, cells: readonly SnapshotNode[]): Written | null {
  if (cells.length === 0) return null;
  const text: string[] = [];
  const bare: string[] = [];
  for (const cell of cells) {
    if (!CELL_ROLES.has(cell.role)) return null;
    const written = cellText(reader, cell);
    if (written === null) return null;
    text.push(written.text);
    bare.push(written.bare);
  }
  return { text: text.join(" | "), bare: bare.join(" | ") };
}

/** A list of two or more items that are each a link or button alone, as one line, the items by `|`; null for any other. */
function itemsLine(reader: TreeReader, items: readonly SnapshotNode[]): Written | null {
  if (items.length < 2) return null;
  const text: string[] = [];
  const bare: string[] = [];
  for (const item of items) {
    let leaf = item;
    for (let inside = reader.kept(leaf); isBareWrapper(leaf) && inside.length === 1; inside = reader.kept(leaf))
      leaf = inside[0] as SnapshotNode;
    if (!ONE_LINE_ITEM_ROLES.has(leaf.role) || reader.kept(leaf).length > 0) return null;
    const written = nodeLine(leaf, item);
    text.push(written.text);
    bare.push(written.bare);
  }
  return { text: text.join(" | "), bare: bare.join(" | ") };
}

/** A cell on its row's line: its text (quoted), or its one leaf; null when it holds more, or its name says other words. */
function cellText(reader: TreeReader, cell: SnapshotNode): Written | null {
  const inside = reader.kept(cell);
  const texts = inside.map((child) => reader.text(child));
  if (texts.every((each) => each !== null)) {
    const text = inside.length === 0 ? cell.name : texts.join(" ");
    if (cell.name !== "" && squashed(cell.name) !== squashed(text)) return null;
    return { text: JSON.stringify(text), bare: JSON.stringify(text) };
  }
  const leaf = inside[0];
  if (inside.length > 1 || !leaf || reader.kept(leaf).length > 0) return null;
  // A cell named by its one control: the control says it all.
  if (cell.name !== "" && cell.name !== leaf.name) return null;
  return nodeLine(leaf, cell);
}

// A line of an action's page changes as the hub writes it: `+ role "name" [ref=e4]: "value"` (a gone line has no ref).
const CHANGE_LINE = /^([+~-]) (\S+)((?: "(?:[^"\\]|\\.)*")?)((?: \[ref=[^\]]*\])?)((?:: .*)?)$/;

/**
 * An action's page changes (`changes.diff`) written as the compact text writes lines: a text as its quoted words with
 * no ref, text structure (a paragraph, a list item) with no ref, an unnamed wrapper that carries nothing left out
 * (its texts have lines of their own). A line cut short, or of another shape, is kept as it is.
 */
export function compactChangeLines(diff: string): string {
  const lines: string[] = [];
  for (const line of diff.split("\n")) {
    const match = CHANGE_LINE.exec(line);
    if (!match) {
      lines.push(line);
      continue;
    }
    const [, status, role = "", name = "", ref = "", value = ""] = match;
    if (role === "StaticText" && name !== "") lines.push(`${status} ${name.slice(1)}`);
    else if (WRAPPER_ROLES.has(role) && name === "" && value === "") continue;
    else lines.push(`${status} ${role}${name}${TEXT_STRUCTURE_ROLES.has(role) ? "" : ref}${value}`);
  }
  return lines.join("\n");
}
