import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { RemoteFrames, type FrameSession } from "../cdp/remote-frames.js";
import type { TabSession } from "../cdp/tab-session.js";
import type { SnapshotAxNode } from "./ax-tree.js";

type FrameTree = Protocol.Page.FrameTree;

/** One process's view while the frames are walked: its session, and the cross-site frame it is (none: the tab) with that frame's document. */
interface Process {
  session: FrameSession;
  remoteFrame?: string;
  document?: string;
}

interface Walk {
  all: SnapshotAxNode[];
  budget: Budget;
  frames: RemoteFrames;
  iframeTargets: Protocol.Target.TargetInfo[];
  /** The cross-site frames reached. */
  reached: Set<string>;
}

/**
 * The accessibility nodes of the tab's main frame and of every iframe under it, as one tree: each frame's document
 * hangs under its Iframe node. Chrome answers getFullAXTree for one document at a time, and for a cross-site frame
 * only on a session attached to that frame (it runs in a renderer of its own); those nodes are marked with the frame
 * so refs resolve there. Node ids of a child frame are prefixed with its frame id so they never collide.
 */
export async function axNodesWithFrames(tab: TabSession, budget: Budget): Promise<SnapshotAxNode[]> {
  const frames = RemoteFrames.of(tab);
  const [{ nodes }, { frameTree }, iframeTargets] = await Promise.all([
    tab.send("Accessibility.getFullAXTree", {}, { budget }),
    tab.send("Page.getFrameTree", undefined, { budget }),
    frames.iframeTargets(budget),
  ]);
  const walk: Walk = { all: [...nodes], budget, frames, iframeTargets, reached: new Set() };
  await addChildFrames({ session: tab }, frameTree, walk);
  frames.keepOnly(walk.reached);
  return walk.all;
}

async function addChildFrames(process: Process, tree: FrameTree, walk: Walk): Promise<void> {
  // Chrome leaves cross-site children out of the parent's frame tree; their targets name the parent frame.
  const remote = walk.iframeTargets.filter((target) => target.parentFrameId === tree.frame.id);
  await Promise.all([
    ...(tree.childFrames ?? []).map((child) => addLocalFrame(process, child, walk)),
    ...remote.map((target) => addRemoteFrame(process, { parentFrameId: tree.frame.id, frameId: target.targetId }, walk)),
  ]);
}

async function addLocalFrame(process: Process, child: FrameTree, walk: Walk): Promise<void> {
  const frameId = child.frame.id;
  const { session } = process;
  const [tree, owner] = await Promise.all([
    session.send("Accessibility.getFullAXTree", { frameId }, { budget: walk.budget }).catch(() => null),
    session.send("DOM.getFrameOwner", { frameId }, { budget: walk.budget }).catch(() => null),
  ]);
  if (!tree || !owner) return;
  if (hang(tree.nodes, { frameId, reader: process, owner: process, ownerNodeId: owner.backendNodeId }, walk)) {
    await addChildFrames(process, child, walk);
  }
}

async function addRemoteFrame(parent: Process, at: { parentFrameId: string; frameId: string }, walk: Walk): Promise<void> {
  const { frameId } = at;
  walk.reached.add(frameId);
  walk.frames.place(frameId, {
    parentFrameId: at.parentFrameId,
    ...(parent.remoteFrame === undefined ? {} : { parentRemote: parent.remoteFrame }),
  });
  const session = await walk.frames.session(frameId, walk.budget).catch(() => null);
  if (!session) return;
  const [tree, frameTree, owner] = await Promise.all([
    session.send("Accessibility.getFullAXTree", {}, { budget: walk.budget }).catch(() => null),
    session.send("Page.getFrameTree", undefined, { budget: walk.budget }).catch(() => null),
    parent.session.send("DOM.getFrameOwner", { frameId }, { budget: walk.budget }).catch(() => null),
  ]);
  if (!tree || !frameTree || !owner) return;
  const process: Process = { session, remoteFrame: frameId, document: frameTree.frameTree.frame.loaderId };
  if (hang(tree.nodes, { frameId, reader: process, owner: parent, ownerNodeId: owner.backendNodeId }, walk)) {
    await addChildFrames(process, frameTree.frameTree, walk);
  }
}

/**
 * Hangs a frame's nodes (read by `reader`) under its Iframe node (the DOM node `ownerNodeId` in `owner`, the parent's
 * process); false when that Iframe node is not in the tree (hidden from the accessibility tree).
 */
function hang(
  nodes: readonly Protocol.Accessibility.AXNode[],
  frame: { frameId: string; reader: Process; owner: Process; ownerNodeId: number },
  walk: Walk,
): boolean {
  const { remoteFrame } = frame.owner;
  const iframe = walk.all.find((node) => node.backendDOMNodeId === frame.ownerNodeId && node.address?.remoteFrame === remoteFrame);
  const prefixed = nodes.map((node) => marked(node, frame.frameId, frame.reader));
  const root = prefixed.find((node) => node.parentId === undefined);
  if (!iframe || !root) return false;
  root.parentId = iframe.nodeId;
  iframe.childIds = [...(iframe.childIds ?? []), root.nodeId];
  walk.all.push(...prefixed);
  return true;
}

function marked(node: Protocol.Accessibility.AXNode, frameId: string, reader: Process): SnapshotAxNode {
  const id = (nodeId: string): string => `${frameId}:${nodeId}`;
  const { remoteFrame, document } = reader;
  return {
    ...node,
    nodeId: id(node.nodeId),
    ...(node.parentId === undefined ? {} : { parentId: id(node.parentId) }),
    ...(node.childIds === undefined ? {} : { childIds: node.childIds.map(id) }),
    ...(remoteFrame === undefined || node.backendDOMNodeId === undefined
      ? {}
      : { address: { backendNodeId: node.backendDOMNodeId, remoteFrame, ...(document === undefined ? {} : { document }) } }),
  };
}
