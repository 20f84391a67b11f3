import type { SnapshotNode } from "../protocol/types.js";
import { addressKey, type AxLine, type NodeAddress } from "./ax-tree.js";

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
// Unnamed, they only wrap what is inside: one with a single child is replaced by it.
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
]);
// Chrome's own wrapper of a native select's options: its options stand in its place.
const TRANSPARENT_ROLES = new Set(["MenuListPopup"]);
const CELL_ROLES = new Set(["cell", "columnheader", "rowheader", "gridcell"]);
// What a label's text names: a StaticText beside one of these, with its name, only repeats it.
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

/**
 * The lines of a snapshot as a language model reads it (`compact`): refs only on what can be acted on or read alone
 * (not on text structure such as rows, cells, list items, paragraphs and labels, nor on a native select's options),
 * a label's text dropped where the control it labels carries it as its name, an unnamed wrapper with one child
 * replaced by that child, and a table row whose cells hold text or one leaf each written as one line
 * (`- row: "Cell" | link "Open" [ref=e9]`). The refs are the tree's own: the same node has the same ref either way.
 */
export function compactLines(root: SnapshotNode, refs: ReadonlyMap<string, NodeAddress | null>): AxLine[] {
  const lines: AxLine[] = [];
  const add = (node: SnapshotNode, depth: number, written: { text: string; bare: string }): void => {
    const address = refs.get(node.ref);
    lines.push({ text: `${"  ".repeat(depth)}- ${written.text}`, bare: written.bare, depth, node: address ? addressKey(address) : null });
  };
  const walk = (node: SnapshotNode, parent: SnapshotNode | null, depth: number): void => {
    const children = keptChildren(node);
    const only = children.length === 1 ? children[0] : undefined;
    if (only && parent && isBareWrapper(node)) return walk(only, parent, depth);
    const row = node.role === "row" ? rowLine(children) : null;
    if (row) return add(node, depth, { text: `row: ${row.text}`, bare: `row: ${row.bare}` });
    add(node, depth, { text: nodeLine(node, parent), bare: nodeLine(node, parent, false) });
    for (const child of children) walk(child, node, depth + 1);
  };
  walk(root, null, 0);
  return lines;
}

/**
 * The node's children a model needs: text (alone, or alone in an unnamed wrapper such as a label or a legend) that is
 * blank or only repeats the node's name or the name of a control beside it is left out.
 */
function keptChildren(node: SnapshotNode): SnapshotNode[] {
  const children = (node.children ?? []).flatMap((child) => (TRANSPARENT_ROLES.has(child.role) ? keptChildren(child) : [child]));
  const repeated = new Set(children.filter((child) => CONTROL_ROLES.has(child.role) && child.name !== "").map((child) => child.name));
  if (node.name !== "") repeated.add(node.name);
  return children.filter((child) => {
    const text = textOf(child);
    return text === null || (text.trim() !== "" && !repeated.has(text.trim()));
  });
}

/** The text a node only holds: a StaticText's, or that of the one StaticText an unnamed wrapper holds; null for any other. */
function textOf(node: SnapshotNode): string | null {
  if (node.role === "StaticText") return node.children === undefined ? node.name : null;
  if (!isBareWrapper(node)) return null;
  const inside = keptChildren(node);
  return inside.length === 1 && inside[0] ? textOf(inside[0]) : null;
}

function isBareWrapper(node: SnapshotNode): boolean {
  return WRAPPER_ROLES.has(node.role) && node.name === "" && node.value === undefined;
}

/** `role "name" [ref=e1]: value`, the ref left out for text structure and a native select's options, or when `withRef` is false. */
function nodeLine(node: SnapshotNode, parent: SnapshotNode | null, withRef = true): string {
  const name = node.name === "" ? "" : ` ${JSON.stringify(node.name)}`;
  const value = node.value === undefined ? "" : `: ${JSON.stringify(node.value)}`;
  const isNativeOption = node.role === "option" && (parent?.role === "combobox" || parent?.role === "MenuListPopup");
  // A named group (a fieldset with its legend) is one a model can name, and read alone with root.
  const isStructure = TEXT_STRUCTURE_ROLES.has(node.role) && !(node.role === "group" && node.name !== "");
  const hasRef = withRef && !isStructure && !isNativeOption;
  return `${node.role}${name}${hasRef ? ` [ref=${node.ref}]` : ""}${value}`;
}

/** A row as one line, its cells by `|`: each cell its text, or its one leaf child; null when a cell holds more. */
function rowLine(cells: readonly SnapshotNode[]): { text: string; bare: string } | null {
  if (cells.length === 0) return null;
  const text: string[] = [];
  const bare: string[] = [];
  for (const cell of cells) {
    if (!CELL_ROLES.has(cell.role)) return null;
    const inside = keptChildren(cell);
    if (inside.length === 0) {
      text.push(JSON.stringify(cell.name));
      bare.push(JSON.stringify(cell.name));
      continue;
    }
    const leaf = inside[0];
    if (inside.length > 1 || !leaf || leaf.children !== undefined) return null;
    // A cell named by its one child's text or control: the child says it all.
    if (cell.name !== "" && cell.name !== leaf.name) return null;
    const written = leaf.role === "StaticText" ? JSON.stringify(leaf.name) : nodeLine(leaf, cell);
    text.push(written);
    bare.push(leaf.role === "StaticText" ? written : nodeLine(leaf, cell, false));
  }
  return { text: text.join(" | "), bare: bare.join(" | ") };
}
