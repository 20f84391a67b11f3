import type { Protocol } from "devtools-protocol";
import { RemoteFrames, type FrameSession } from "../cdp/remote-frames.js";
import { remoteSession, type ElementHandle, type ObjectScope } from "./element-object.js";

/** A point in the top-level viewport, CSS pixels. */
export interface Point {
  x: number;
  y: number;
}

/**
 * A point a page measured: in the viewport of the top document of its same-origin chain of frames (the page adds
 * every frame it can reach), and whether that document is itself a frame whose parent the page cannot reach (another
 * origin, or another process): then the hub adds where that frame lies.
 */
export interface PagePoint extends Point {
  framed: boolean;
}

// Runs in the page: where a window's viewport begins in the viewport at the top of its same-origin chain of frames,
// and whether that top is a frame of a parent out of the page's reach.
export const CHAIN_ORIGIN = `(win) => {
  let x = 0, y = 0;
  for (; win.frameElement; win = win.parent) {
    const frame = win.frameElement, box = frame.getBoundingClientRect(), style = getComputedStyle(frame);
    x += box.left + frame.clientLeft + parseFloat(style.paddingLeft);
    y += box.top + frame.clientTop + parseFloat(style.paddingTop);
  }
  return { x, y, framed: win !== win.top };
}`;
// Runs on an iframe element: where its content box begins, as a PagePoint.
const CONTENT_ORIGIN_OF_THIS = `function () {
  const chain = (${CHAIN_ORIGIN})(this.ownerDocument.defaultView);
  const box = this.getBoundingClientRect(), style = getComputedStyle(this);
  return {
    x: chain.x + box.left + this.clientLeft + parseFloat(style.paddingLeft),
    y: chain.y + box.top + this.clientTop + parseFloat(style.paddingTop),
    framed: chain.framed,
  };
}`;
// Runs on an element: the document at the top of its same-origin chain.
const CHAIN_TOP_DOCUMENT = `function () {
  let win = this.ownerDocument.defaultView;
  while (win.frameElement) win = win.parent;
  return win.document;
}`;

/** A point an element's page measured, in the tab's viewport: the frames above it the page could not reach added. */
export async function pointInTab(scope: ObjectScope, element: ElementHandle, at: PagePoint): Promise<Point> {
  let point: Point = { x: at.x, y: at.y };
  if (at.framed) point = add(point, await chainTopOffset(scope, element));
  if (element.remoteFrame !== undefined) point = add(point, await remoteFrameOrigin(scope, element.remoteFrame));
  return point;
}

/**
 * Where the top document of an element's same-origin chain lies in its process's top viewport: nothing when it is the
 * process's top document, else the frame found by its document (Chrome names no frame for a node) and placed by its
 * owner element.
 */
async function chainTopOffset(scope: ObjectScope, element: ElementHandle): Promise<Point> {
  const { session } = element;
  const { budget, objectGroup } = scope;
  const [{ result }, { frameTree }] = await Promise.all([
    session.send(
      "Runtime.callFunctionOn",
      { functionDeclaration: CHAIN_TOP_DOCUMENT, objectId: element.objectId, objectGroup },
      { budget },
    ),
    session.send("Page.getFrameTree", undefined, { budget }),
  ]);
  if (!result.objectId) return { x: 0, y: 0 };
  const document = await session.send("DOM.describeNode", { objectId: result.objectId }, { budget });
  const frames = framesBelow(frameTree);
  const documents = await Promise.all(frames.map((frameId) => contentDocumentOf(session, frameId, scope).catch(() => null)));
  const frameId = frames[documents.indexOf(document.node.backendNodeId)];
  if (frameId === undefined) return { x: 0, y: 0 };
  const { backendNodeId } = await session.send("DOM.getFrameOwner", { frameId }, { budget });
  return ownerOrigin(scope, { session, backendNodeId, ...(element.remoteFrame === undefined ? {} : { remoteFrame: element.remoteFrame }) });
}

/** Where a cross-site frame's viewport begins in the tab's: its iframe element's content box, read in the parent's process, and so on up. */
export async function remoteFrameOrigin(scope: ObjectScope, remoteFrame: string): Promise<Point> {
  const place = RemoteFrames.of(scope.tab).placeOf(remoteFrame);
  const parent = place.parentRemote === undefined ? scope.tab : await remoteSession(scope, place.parentRemote);
  const { backendNodeId } = await parent.send("DOM.getFrameOwner", { frameId: remoteFrame }, { budget: scope.budget });
  return ownerOrigin(scope, {
    session: parent,
    backendNodeId,
    ...(place.parentRemote === undefined ? {} : { remoteFrame: place.parentRemote }),
  });
}

/** Where the content box of a frame's owner element begins in the tab's viewport. */
async function ownerOrigin(
  scope: ObjectScope,
  owner: { session: FrameSession; backendNodeId: number; remoteFrame?: string },
): Promise<Point> {
  const { budget, objectGroup } = scope;
  const { object } = await owner.session.send("DOM.resolveNode", { backendNodeId: owner.backendNodeId, objectGroup }, { budget });
  const objectId = object.objectId ?? "";
  const { result } = await owner.session.send(
    "Runtime.callFunctionOn",
    { functionDeclaration: CONTENT_ORIGIN_OF_THIS, objectId, returnByValue: true },
    { budget },
  );
  const handle: ElementHandle = {
    objectId,
    session: owner.session,
    ...(owner.remoteFrame === undefined ? {} : { remoteFrame: owner.remoteFrame }),
  };
  return pointInTab(scope, handle, result.value as PagePoint);
}

async function contentDocumentOf(session: FrameSession, frameId: string, scope: ObjectScope): Promise<number | undefined> {
  const { backendNodeId } = await session.send("DOM.getFrameOwner", { frameId }, { budget: scope.budget });
  const { node } = await session.send("DOM.describeNode", { backendNodeId, pierce: true }, { budget: scope.budget });
  return node.contentDocument?.backendNodeId;
}

function framesBelow(tree: Protocol.Page.FrameTree): string[] {
  return (tree.childFrames ?? []).flatMap((child) => [child.frame.id, ...framesBelow(child)]);
}

function add(a: Point, b: Point): Point {
  return { x: a.x + b.x, y: a.y + b.y };
}
