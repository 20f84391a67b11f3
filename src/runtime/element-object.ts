import type { TabSession } from "../cdp/tab-session.js";
import type { Budget } from "../budget.js";
import { RemoteFrames, type FrameSession } from "../cdp/remote-frames.js";
import { HubError } from "../errors.js";
import type { NodeAddress } from "./ax-tree.js";
import { NODE_OF_ID } from "./dom-ax-script.js";
import { refRegistryOf } from "./ref-registry.js";
import { isContextGone } from "../cdp/protocol-errors.js";

/** An element named by a snapshot ref, a CSS selector or Chrome's backendNodeId. */
export type ElementReference = { ref: string } | { selector: string } | { backendNodeId: number };

/** Where remote objects of a call live: its tab, budget and object group (released when the call ends), and the cross-site frames' sessions it reached. */
export interface ObjectScope {
  tab: TabSession;
  budget: Budget;
  objectGroup: string;
  remoteSessions: Set<FrameSession>;
}

/** An element's remote object, with the session it lives in (the tab's, or a cross-site frame's). */
export interface ElementHandle {
  objectId: string;
  session: FrameSession;
  /** The cross-site frame the element is in; none for the tab's own process. */
  remoteFrame?: string;
}

/** The node an element reference names once checked: a node of the tab or of one of its cross-site frames, or a selector. */
export type ReferencedNode = (NodeAddress & { label: string }) | { selector: string };

const RELEASE_TIMEOUT_MS = 1_000;

/** What an element lookup answers: the node itself, or the element an action works on (a document's body, a comment's parent). */
export type NodeUse = "node" | "actionable";

// Run on the node found: itself while it is still in its document (a removed node that is still alive resolves, and
// acting on it would silently do nothing), or null.
const LIVE: Readonly<Record<NodeUse, string>> = {
  node: "function () { return this.isConnected ? this : null; }",
  actionable: `function () {
    if (!this.isConnected) return null;
    if (this.nodeType === Node.ELEMENT_NODE || this.nodeType === Node.TEXT_NODE) return this;
    if (this.nodeType === Node.DOCUMENT_NODE) return this.body || this.documentElement;
    return this.parentElement;
  }`,
};

/** The node a ref names, checked before anything runs in the page (NODE_NOT_FOUND for a stale or unknown ref). */
export function nodeOfReference(tab: TabSession, element: ElementReference): ReferencedNode {
  if ("selector" in element) return element;
  if ("ref" in element) return { ...refRegistryOf(tab).node(element.ref), label: `ref ${element.ref}` };
  return { backendNodeId: element.backendNodeId, label: `backendNodeId ${element.backendNodeId}` };
}

/** The remote object of an element: the first match of a selector in the top document, or a node still in its document. */
export async function elementObject(
  scope: ObjectScope,
  node: ReferencedNode,
  lookup: { method: string; use: NodeUse },
): Promise<ElementHandle> {
  const { method, use } = lookup;
  if ("selector" in node) return { objectId: await firstMatch(scope, node.selector, method), session: scope.tab };
  const { remoteFrame, label } = node;
  const session = remoteFrame === undefined ? scope.tab : await remoteSession(scope, remoteFrame);
  const backendNodeId = "backendNodeId" in node ? node.backendNodeId : await backendNodeOfPageNode(session, scope, node);
  const objectId = await liveNode(session, scope, { backendNodeId, label, use });
  return remoteFrame === undefined ? { objectId, session } : { objectId, session, remoteFrame };
}

/** The session of one of the tab's cross-site frames, remembered in the scope so that its objects are released too. */
export async function remoteSession(scope: ObjectScope, remoteFrame: string): Promise<FrameSession> {
  const session = await RemoteFrames.of(scope.tab).session(remoteFrame, scope.budget);
  scope.remoteSessions.add(session);
  return session;
}

/** Releases the call's remote objects, in the tab and in every cross-site frame it reached; never waits on the page. */
export function releaseObjects(scope: ObjectScope): void {
  for (const session of [scope.tab, ...scope.remoteSessions]) {
    session.send("Runtime.releaseObjectGroup", { objectGroup: scope.objectGroup }, { timeoutMs: RELEASE_TIMEOUT_MS }).catch(() => {});
  }
}

async function firstMatch(scope: ObjectScope, selector: string, method: string): Promise<string> {
  const { result, exceptionDetails } = await scope.tab.send(
    "Runtime.evaluate",
    { expression: `document.querySelector(${JSON.stringify(selector)})`, objectGroup: scope.objectGroup },
    { budget: scope.budget },
  );
  if (exceptionDetails) throw invalidSelector(method, selector);
  if (!result.objectId) {
    throw new HubError(
      "NODE_NOT_FOUND",
      `no element matches the selector ${JSON.stringify(selector)}; check it, or take a snapshot and use a ref`,
    );
  }
  return result.objectId;
}

/** INVALID_PARAMS for a selector the page cannot parse. */
export function invalidSelector(method: string, selector: string): HubError {
  return new HubError("INVALID_PARAMS", `invalid params for ${method}: ${JSON.stringify(selector)} is not a valid CSS selector`, {
    errors: [{ path: "/selector", message: "is not a valid CSS selector" }],
  });
}

/** The backendNodeId of a node a `source: "dom"` snapshot named, found through the world its page script ran in. */
async function backendNodeOfPageNode(
  session: FrameSession,
  scope: ObjectScope,
  node: { pageNode: number; contextId: number; label: string },
): Promise<number> {
  const { result } = await session
    .send(
      "Runtime.evaluate",
      { expression: `(${NODE_OF_ID})(${node.pageNode})`, contextId: node.contextId, objectGroup: scope.objectGroup },
      { budget: scope.budget },
    )
    .catch((error: unknown) => Promise.reject(isContextGone(error) ? gone(node.label) : error));
  if (!result.objectId) throw gone(node.label);
  const described = await session.send("DOM.describeNode", { objectId: result.objectId }, { budget: scope.budget });
  return described.node.backendNodeId;
}

function gone(label: string): HubError {
  return new HubError(
    "NODE_NOT_FOUND",
    `${label} names an element that is gone from its page (removed, or its document replaced); take a new snapshot and use its refs`,
  );
}

async function liveNode(
  session: FrameSession,
  scope: ObjectScope,
  node: { backendNodeId: number; label: string; use: NodeUse },
): Promise<string> {
  const { object } = await session
    .send("DOM.resolveNode", { backendNodeId: node.backendNodeId, objectGroup: scope.objectGroup }, { budget: scope.budget })
    .catch((error: unknown) =>
      Promise.reject(/No node with given id found|does not belong to the document/.test(String(error)) ? gone(node.label) : error),
    );
  if (!object.objectId) throw gone(node.label);
  const live = await session.send(
    "Runtime.callFunctionOn",
    { functionDeclaration: LIVE[node.use], objectId: object.objectId, objectGroup: scope.objectGroup },
    { budget: scope.budget },
  );
  if (!live.result.objectId) throw gone(node.label);
  return live.result.objectId;
}
