import { randomUUID } from "node:crypto";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError, isHubError } from "../errors.js";
import type { Result, SnapshotNode } from "../protocol/types.js";
import type { SnapshotShape } from "./kept-snapshots.js";
import { addressKey, buildAxTree, type NodeAddress, type SnapshotAxNode } from "./ax-tree.js";
import { domAxNodes } from "./dom-ax-nodes.js";
import { refRegistryOf, type RefRegistry } from "./ref-registry.js";
import { linkSnapshotRefs } from "./ref-links.js";
import { nodeBoxes, type Box } from "./node-boxes.js";
import { axNodesWithFrames } from "./frame-ax-nodes.js";
import { compactLines } from "./snapshot-compact.js";
import { cursorOf, diffLines, pageOf, readCursor } from "./snapshot-text.js";

/** The params of `snapshot` once validated and defaulted. */
export interface SnapshotOptions {
  /** Chrome's accessibility tree, or the hub's reading of the DOM (faster on large pages). */
  source: "chrome" | "dom";
  interestingOnly: boolean;
  interactiveOnly: boolean;
  maxDepth?: number;
  root?: string;
  maxChars?: number;
  cursor?: string;
  diff?: string;
  boxes: boolean;
  /** The text as a language model reads it (snapshot-compact.ts); the tree and its refs are the same. */
  compact: boolean;
}

/** The result of `snapshot` (docs/protocol.md section 5, "Page structure and capture"). */
export type Snapshot = Result<"snapshot">;

/**
 * Takes the accessibility tree of the tab's main frame (or of one element's subtree) with the tab's refs (an element
 * keeps its ref from one snapshot to the next, whoever takes them); answers its text whole, paged (`maxChars`, then
 * `cursor`), or as what changed since an earlier snapshot of the tab (`diff`).
 */
export async function snapshotTab(tab: TabSession, asked: SnapshotOptions, budget: Budget): Promise<Snapshot> {
  const registry = refRegistryOf(tab);
  if (asked.cursor !== undefined) return nextPage(registry, asked.cursor, asked.maxChars);
  const base = asked.diff === undefined ? null : registry.snapshots.get(asked.diff, "diff");
  // A diff compares like with like: the page is read again the way the snapshot it compares with was read.
  const options: SnapshotOptions = base ? { ...withoutShape(asked), ...base.shape } : asked;
  // A root that names nothing fails before the page is read.
  if (options.root !== undefined) registry.node(options.root);
  const before = base?.lines ?? null;
  let hasNavigated = false;
  const stopWatching = tab.onNavigated(() => {
    hasNavigated = true;
  });
  const navigatedOr = (error: unknown): Promise<never> => Promise.reject(hasNavigated && !isHubError(error) ? pageNavigated() : error);
  try {
    const [{ nodes, boxOf, truncated: readTruncated }, { targetInfo }] = await Promise.all([
      readNodes(tab, options, budget),
      tab.send("Target.getTargetInfo", {}, { budget }),
    ]).catch(navigatedOr);
    await linkSnapshotRefs(tab, { registry, nodes, options }, budget).catch(navigatedOr);
    // Refs of a tree from the document that just went away would name nodes of no page.
    if (hasNavigated) throw pageNavigated();
    registry.beginSnapshot();
    const tree = buildAxTree(nodes, { ...options, refs: registry });
    if (boxOf) addBoxes(tree.root, tree.refs, boxOf);
    const snapshotId = randomUUID();
    const lines = options.compact ? compactLines(tree.root, tree.refs) : tree.lines;
    const wholeText = options.compact ? lines.map((line) => line.text).join("\n") : tree.text;
    const text = before ? diffLines(before, lines) : wholeText;
    const { url } = targetInfo;
    const title = documentTitle(tree.root, options) ?? targetInfo.title;
    // Paged and diff answers carry the root node alone: the tree as JSON is larger than its text.
    const { children: _children, box: _box, ...rootNode } = tree.root;
    registry.snapshots.add({ snapshotId, lines, text, url, title, rootNode, shape: shapeOf(options) });
    const whole = options.maxChars === undefined && !before;
    const truncated = tree.truncated || readTruncated === true ? { truncated: true as const } : {};
    const answer: Snapshot = { snapshotId, url, title, text, root: whole ? tree.root : rootNode, ...truncated };
    return options.maxChars === undefined ? answer : { ...answer, ...paged(snapshotId, text, { from: 0, maxChars: options.maxChars }) };
  } finally {
    stopWatching();
  }
}

function shapeOf(options: SnapshotOptions): SnapshotShape {
  const { source, interestingOnly, interactiveOnly, maxDepth, root, compact } = options;
  return {
    source,
    interestingOnly,
    interactiveOnly,
    compact,
    ...(maxDepth === undefined ? {} : { maxDepth }),
    ...(root === undefined ? {} : { root }),
  };
}

function withoutShape(options: SnapshotOptions): SnapshotOptions {
  const { maxDepth: _maxDepth, root: _root, ...rest } = options;
  return rest;
}

/**
 * The title of the document the tree was read from: its root line's name. Chrome's record of the target (which
 * Target.getTargetInfo answers) takes the new title a moment after a navigation, and says the URL until then.
 */
function documentTitle(root: SnapshotNode, options: SnapshotOptions): string | null {
  if (options.root !== undefined || root.role !== "RootWebArea") return null;
  return root.name === "" ? null : root.name;
}

function nextPage(registry: RefRegistry, cursor: string, maxChars: number | undefined): Snapshot {
  const { snapshotId, offset } = readCursor(cursor);
  const kept = registry.snapshots.get(snapshotId, "cursor");
  if (offset > kept.text.length) {
    throw new HubError("INVALID_PARAMS", "invalid params for snapshot: the cursor points past the end of its snapshot's text", {
      errors: [{ path: "/cursor", message: "is past the end of its snapshot" }],
    });
  }
  const { url, title, text, rootNode } = kept;
  return { snapshotId, url, title, root: rootNode, ...paged(snapshotId, text, { from: offset, maxChars: maxChars ?? text.length }) };
}

function paged(
  snapshotId: string,
  text: string,
  at: { from: number; maxChars: number },
): Pick<Snapshot, "text" | "nextCursor" | "totalChars"> {
  const page = pageOf(text, at.from, at.maxChars);
  return { text: page.text, totalChars: text.length, ...(page.next === null ? {} : { nextCursor: cursorOf(snapshotId, page.next) }) };
}

/** A node's box in the viewport, when the snapshot measured one. */
type BoxOf = (address: NodeAddress) => Box | undefined;

/**
 * The tab's accessibility nodes from the source asked for: Chrome's own tree (every frame's), or the hub's reading of
 * the DOM; with a way to find each node's box when `boxes` is asked.
 */
async function readNodes(
  tab: TabSession,
  options: SnapshotOptions,
  budget: Budget,
): Promise<{ nodes: SnapshotAxNode[]; boxOf: BoxOf | null; truncated?: boolean }> {
  if (options.source === "dom") {
    const { nodes, boxes, truncated } = await domAxNodes(tab, budget, options.boxes);
    return { nodes, truncated, boxOf: options.boxes ? (address) => boxes.get(addressKey(address)) : null };
  }
  const [nodes, boxes] = await Promise.all([axNodesWithFrames(tab, budget), options.boxes ? nodeBoxes(tab, budget) : null]);
  // Chrome's boxes are read in the tab's process: nodes inside cross-site frames carry none.
  const boxOf: BoxOf | null =
    boxes &&
    ((address) => ("backendNodeId" in address && address.remoteFrame === undefined ? boxes.get(address.backendNodeId) : undefined));
  return { nodes, boxOf };
}

function addBoxes(node: SnapshotNode, refs: ReadonlyMap<string, NodeAddress | null>, boxOf: BoxOf): void {
  const address = refs.get(node.ref);
  const box = address ? boxOf(address) : undefined;
  if (box) node.box = box;
  for (const child of node.children ?? []) addBoxes(child, refs, boxOf);
}

function pageNavigated(): HubError {
  return new HubError("PAGE_NAVIGATED", "the page navigated while the snapshot was taken; take it again");
}
