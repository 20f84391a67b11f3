import type { Budget } from "../budget.js";
import type { FrameSession } from "../cdp/remote-frames.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import type { CssRect } from "./capture-screenshot.js";
import { elementObject, nodeOfReference, releaseObjects, type ObjectScope } from "./element-object.js";
import { CHAIN_ORIGIN, pointInTab, type PagePoint } from "./frame-offset.js";
import { nextObjectGroup } from "./guarded-call.js";
import { runHubScript } from "./hub-script.js";

// Runs on the element: its border box in the viewport at the top of its same-origin chain of frames. A ref may name
// a text node (a snapshot's StaticText): its box is the box of its text.
const BORDER_BOX = `function () {
  const range = this.nodeType === Node.TEXT_NODE ? this.ownerDocument.createRange() : null;
  range?.selectNodeContents(this);
  const r = (range ?? this).getBoundingClientRect();
  const chain = (${CHAIN_ORIGIN})(this.ownerDocument.defaultView);
  return { x: r.left + chain.x, y: r.top + chain.y, width: r.width, height: r.height, framed: chain.framed };
}`;

/**
 * The border box of a ref's element in the tab's document coordinates (as a clip takes them): measured in its page,
 * the frames above it added wherever they run, and the tab's scroll. NODE_NOT_FOUND for a stale ref or an empty box.
 */
export async function refBox(tab: TabSession, ref: string, budget: Budget): Promise<CssRect> {
  const scope: ObjectScope = { tab, budget, objectGroup: nextObjectGroup(), remoteSessions: new Set<FrameSession>() };
  try {
    const element = await elementObject(scope, nodeOfReference(tab, { ref }), { method: "screenshot", use: "actionable" });
    const { result, exceptionDetails } = await runHubScript("the hub's measuring of the element", () =>
      element.session.send(
        "Runtime.callFunctionOn",
        { functionDeclaration: BORDER_BOX, objectId: element.objectId, returnByValue: true },
        { budget },
      ),
    );
    if (exceptionDetails)
      throw new Error(
        `the hub's measuring of the element failed in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
      );
    const box = result.value as PagePoint & { width: number; height: number };
    if (!(box.width > 0 && box.height > 0)) {
      throw new HubError(
        "NODE_NOT_FOUND",
        `the element of ref ${ref} has an empty box (hidden or display: none), so there is nothing to capture`,
      );
    }
    const [corner, scroll] = await Promise.all([
      pointInTab(scope, element, box),
      tab.send("Runtime.evaluate", { expression: "[scrollX, scrollY]", returnByValue: true }, { budget }),
    ]);
    const [scrollX, scrollY] = scroll.result.value as [number, number];
    return { x: corner.x + scrollX, y: corner.y + scrollY, width: box.width, height: box.height };
  } catch (error) {
    if (isContextGone(error))
      throw new HubError("PAGE_NAVIGATED", "the page navigated while the element was measured; take a new snapshot");
    throw error;
  } finally {
    releaseObjects(scope);
  }
}
