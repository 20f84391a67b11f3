import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";

type AxNode = Protocol.Accessibility.AXNode;
type FrameTree = Protocol.Page.FrameTree;

/**
 * The accessibility nodes of the tab's main frame and of the frames in its process, as one tree: each child frame's
 * document hangs under its Iframe node. Chrome answers getFullAXTree for one document at a time; node ids of a
 * child frame are prefixed with its frame id so they never collide with another document's. A frame Chrome runs in
 * another process (a cross-site iframe) answers nothing here and stays an Iframe node without children.
 */
export async function axNodesWithFrames(tab: TabSession, budget: Budget): Promise<AxNode[]> {
  const [{ nodes }, { frameTree }] = await Promise.all([
    tab.send("Accessibility.getFullAXTree", {}, { budget }),
    tab.send("Page.getFrameTree", undefined, { budget }),
  ]);
  const all = [...nodes];
  await addChildFrames(tab, { tree: frameTree, all, budget });
  return all;
}

async function addChildFrames(tab: TabSession, at: { tree: FrameTree; all: AxNode[]; budget: Budget }): Promise<void> {
  for (const child of at.tree.childFrames ?? []) {
    const frameId = child.frame.id;
    const [tree, owner] = await Promise.all([
      tab.send("Accessibility.getFullAXTree", { frameId }, { budget: at.budget }).catch(() => null),
      tab.send("DOM.getFrameOwner", { frameId }, { budget: at.budget }).catch(() => null),
    ]);
    if (!tree || !owner || tree.nodes.length === 0) continue;
    const prefixed = tree.nodes.map((node) => prefix(node, frameId));
    const root = prefixed.find((node) => node.parentId === undefined);
    const iframe = at.all.find((node) => node.backendDOMNodeId === owner.backendNodeId);
    if (!root || !iframe) continue;
    root.parentId = iframe.nodeId;
    iframe.childIds = [...(iframe.childIds ?? []), root.nodeId];
    at.all.push(...prefixed);
    await addChildFrames(tab, { ...at, tree: child });
  }
}

function prefix(node: AxNode, frameId: string): AxNode {
  const id = (nodeId: string): string => `${frameId}:${nodeId}`;
  return {
    ...node,
    nodeId: id(node.nodeId),
    ...(node.parentId === undefined ? {} : { parentId: id(node.parentId) }),
    ...(node.childIds === undefined ? {} : { childIds: node.childIds.map(id) }),
  };
}
