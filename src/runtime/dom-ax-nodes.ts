import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { RemoteFrames, type FrameSession } from "../cdp/remote-frames.js";
import type { TabSession } from "../cdp/tab-session.js";
import { addressKey, MAX_SNAPSHOT_NODES, type SnapshotAxNode } from "./ax-tree.js";
import { NODE_OF_ID } from "./dom-ax-script.js";
import type { Box } from "./node-boxes.js";
import { inSnapshotWorld } from "./snapshot-world.js";
import { runWorldScript } from "./world-scripts.js";

/** What the page script answers for one document, as JSON text (see READ_DOM_AX in dom-ax-script.ts). */
interface DomRead {
  nodes: (number | string | null)[];
  boxes: number[];
  frames: number[];
  /** The script stopped at its node cap. */
  truncated: boolean;
}

/** One document read: its process (session and cross-site frame, if any), the frame and the world context it was read in. */
interface Reader extends Process {
  frameId: string;
  contextId: number;
}

/** A process documents are read in: the tab's, or a cross-site frame's (with the loaderId of that frame's document). */
interface Process {
  session: FrameSession;
  remoteFrame?: string;
  document?: string;
}

interface Walk {
  tab: TabSession;
  budget: Budget;
  wantBoxes: boolean;
  all: SnapshotAxNode[];
  boxes: Map<string, Box>;
  iframeTargets: Protocol.Target.TargetInfo[];
  reached: Set<string>;
  /** The most nodes of all documents together; past them the walk is truncated. */
  maxNodes: number;
  truncated: boolean;
}

const FIELDS = 5;

/**
 * The tab's accessibility nodes read from its DOM by the hub's page script (`snapshot` with `source: "dom"`), in
 * the shape of Chrome's, each naming its DOM node by the script's id; with their boxes when asked. Same-origin
 * iframes are read with their parent; a frame of another origin (in the tab's process or in its own) is read in its
 * own world and hung under its Iframe node.
 */
export async function domAxNodes(
  tab: TabSession,
  budget: Budget,
  wantBoxes: boolean,
): Promise<{ nodes: SnapshotAxNode[]; boxes: Map<string, Box>; truncated: boolean }> {
  const frames = RemoteFrames.of(tab);
  const iframeTargets = await frames.iframeTargets(budget);
  const walk: Walk = {
    tab,
    budget,
    wantBoxes,
    all: [],
    boxes: new Map(),
    iframeTargets,
    reached: new Set(),
    maxNodes: MAX_SNAPSHOT_NODES,
    truncated: false,
  };
  await readDocument(walk, { session: tab, frameId: tab.tabId }, null);
  frames.keepOnly(walk.reached);
  return { nodes: walk.all, boxes: walk.boxes, truncated: walk.truncated };
}

/** Reads one frame's document and hangs it under `iframe` (null for the tab's main frame), then the frames it could not reach. */
async function readDocument(walk: Walk, at: Process & { frameId: string }, iframe: SnapshotAxNode | null): Promise<void> {
  const { budget } = walk;
  if (walk.all.length >= walk.maxNodes) {
    walk.truncated = true;
    return;
  }
  const { read, contextId } = await inSnapshotWorld(at.session, { frameId: at.frameId, budget }, async (contextId) => {
    const world = { frameId: at.frameId, contextId, budget, what: "the hub's read of the page for snapshot" };
    // Boxes are measured in the tab's viewport only from the main frame's world (frames of another origin carry none).
    const args = [walk.wantBoxes && iframe === null, walk.maxNodes - walk.all.length];
    const { result, exceptionDetails } = await runWorldScript(at.session, world, { script: "read", args });
    if (exceptionDetails)
      throw new Error(`the snapshot's page script failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    if (typeof result.value !== "string") throw new Error("the snapshot's page script answered no text");
    return { read: JSON.parse(result.value) as DomRead, contextId };
  });
  if (read.truncated) walk.truncated = true;
  const reader: Reader = { ...at, contextId };
  const added = addNodes(walk, { reader, read, under: iframe });
  if (read.frames.length > 0)
    await readOtherOrigins(
      walk,
      reader,
      read.frames.map((id) => added.get(id)).filter((node) => node !== undefined),
    );
}

/** Turns the script's flat answer into AX nodes, hung under `iframe`; answers them by the script's node id. */
function addNodes(walk: Walk, document: { reader: Reader; read: DomRead; under: SnapshotAxNode | null }): Map<number, SnapshotAxNode> {
  const { reader, read, under: iframe } = document;
  const byId = new Map<number, SnapshotAxNode>();
  const prefix = `${reader.remoteFrame ?? ""}/${reader.contextId}.`;
  const made: SnapshotAxNode[] = [];
  const { nodes } = read;
  for (let at = 0; at < nodes.length; at += FIELDS) {
    const parent = nodes[at] as number;
    const role = nodes[at + 1] as string;
    const name = nodes[at + 2] as string;
    const value = nodes[at + 3] as string | number | null;
    const id = nodes[at + 4] as number;
    const address = { pageNode: id, contextId: reader.contextId, ...processOf(reader) };
    const node: SnapshotAxNode = {
      nodeId: prefix + id,
      ignored: false,
      role: { type: "role", value: role },
      name: { type: "computedString", value: name },
      address,
      childIds: [],
    };
    if (value !== null) node.value = { type: typeof value === "number" ? "number" : "string", value };
    const parentNode = parent === -1 ? iframe : made[parent];
    if (parentNode) {
      node.parentId = parentNode.nodeId;
      (parentNode.childIds ??= []).push(node.nodeId);
    }
    made.push(node);
    walk.all.push(node);
    byId.set(id, node);
    if (read.boxes.length > 0 && role !== "StaticText") {
      const [x, y, width, height] = read.boxes.slice((at / FIELDS) * 4, (at / FIELDS) * 4 + 4) as [number, number, number, number];
      walk.boxes.set(addressKey(address), { x: round(x), y: round(y), width: round(width), height: round(height) });
    }
  }
  return byId;
}

/**
 * Reads the iframes a document's script could not reach (another origin): each iframe element is matched to its frame
 * by the element Chrome names as the frame's owner, among the frames of the reader's process and the cross-site
 * frames whose parent is one of those.
 */
async function readOtherOrigins(walk: Walk, reader: Reader, iframes: SnapshotAxNode[]): Promise<void> {
  const { budget } = walk;
  const [owners, { frameTree }] = await Promise.all([
    Promise.all(iframes.map((iframe) => backendNodeIdOf(reader, iframe, budget).catch(() => null))),
    reader.session.send("Page.getFrameTree", undefined, { budget }),
  ]);
  const local = framesOf(frameTree).filter((frameId) => frameId !== reader.frameId && frameId !== frameTree.frame.id);
  const inProcess = new Set(framesOf(frameTree));
  const remote = walk.iframeTargets.filter((target) => target.parentFrameId !== undefined && inProcess.has(target.parentFrameId));
  const candidates = [
    ...local.map((frameId) => ({ frameId, parentFrameId: null })),
    ...remote.map((target) => ({ frameId: target.targetId, parentFrameId: target.parentFrameId ?? "" })),
  ];
  await Promise.all(
    candidates.map(async (candidate) => {
      const owner = await reader.session.send("DOM.getFrameOwner", { frameId: candidate.frameId }, { budget }).catch(() => null);
      const index = owner ? owners.indexOf(owner.backendNodeId) : -1;
      const iframe = iframes[index];
      if (!iframe) return;
      if (candidate.parentFrameId === null) {
        await readDocument(walk, { session: reader.session, frameId: candidate.frameId, ...processOf(reader) }, iframe);
        return;
      }
      const frames = RemoteFrames.of(walk.tab);
      walk.reached.add(candidate.frameId);
      frames.place(candidate.frameId, {
        parentFrameId: candidate.parentFrameId,
        ...(reader.remoteFrame === undefined ? {} : { parentRemote: reader.remoteFrame }),
      });
      const session = await frames.session(candidate.frameId, budget).catch(() => null);
      const tree = await session?.send("Page.getFrameTree", undefined, { budget }).catch(() => null);
      if (!session || !tree) return;
      const at = { session, frameId: candidate.frameId, remoteFrame: candidate.frameId, document: tree.frameTree.frame.loaderId };
      await readDocument(walk, at, iframe).catch(() => undefined);
    }),
  );
}

/** The backendNodeId of a node the script read, through the world it was read in. */
async function backendNodeIdOf(reader: Reader, node: SnapshotAxNode, budget: Budget): Promise<number> {
  const id = node.address && "pageNode" in node.address ? node.address.pageNode : -1;
  const { result } = await reader.session.send(
    "Runtime.evaluate",
    { expression: `(${NODE_OF_ID})(${id})`, contextId: reader.contextId, objectGroup: "tabwire-snapshot-frames" },
    { budget },
  );
  if (!result.objectId) throw new Error("the iframe is gone");
  try {
    const described = await reader.session.send("DOM.describeNode", { objectId: result.objectId }, { budget });
    return described.node.backendNodeId;
  } finally {
    reader.session.send("Runtime.releaseObject", { objectId: result.objectId }).catch(() => {});
  }
}

/** The cross-site frame a reader is in, and its document; nothing for the tab's own process. */
function processOf(reader: Process): { remoteFrame?: string; document?: string } {
  if (reader.remoteFrame === undefined) return {};
  return { remoteFrame: reader.remoteFrame, ...(reader.document === undefined ? {} : { document: reader.document }) };
}

function framesOf(tree: Protocol.Page.FrameTree): string[] {
  return [tree.frame.id, ...(tree.childFrames ?? []).flatMap(framesOf)];
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
