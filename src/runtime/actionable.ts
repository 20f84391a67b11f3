import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import type { ElementHandle, ObjectScope } from "./element-object.js";
import { CHAIN_ORIGIN, pointInTab, type PagePoint, type Point } from "./frame-offset.js";

export type { Point };

/** What an action needs of its element before it acts (docs/protocol.md, "Actions"). */
export interface ActionChecks {
  /** Not disabled (`:disabled`, or inside `aria-disabled="true"`). */
  enabled: boolean;
  /** Takes text: an input or textarea that is not read-only, or contenteditable. */
  editable: boolean;
  /** The element (or one of its descendants) is what the pointer hits at the point. */
  hitTest: boolean;
  /** Where to act, from the element's top-left corner (CSS pixels); its centre when absent. */
  position?: { x: number; y: number };
}

// Leaves the hub this much of the budget to act and answer once the page gives up waiting.
const ANSWER_MARGIN_MS = 100;

// Runs in the element's page. Waits, one animation frame at a time (or 100 ms in a tab that paints no frames), until
// the element is attached, visible, scrolled into view, stable (no animation running in its document, or the same
// box two frames running), enabled, editable when asked, and hit by the pointer at its point; then answers the point
// in the top-level viewport. Past `timeoutMs` it answers why not: hidden, disabled, not editable, covered by <what>,
// detached or moving. The point is in the viewport at the top of the element's same-origin chain of frames: the hub
// adds where frames of another origin or process lie.
const WAIT_ACTIONABLE = `async function (checks, timeoutMs) {
  const node = this;
  const end = performance.now() + timeoutMs;
  const element = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
  const nextFrame = () => new Promise((resolve) => { requestAnimationFrame(() => resolve()); setTimeout(resolve, 100); });
  const describe = (hit) => {
    let text = hit.tagName.toLowerCase() + (hit.id ? "#" + hit.id : "");
    for (const name of [...hit.classList].slice(0, 3)) text += "." + name;
    const words = (hit.innerText || hit.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 40);
    return words ? text + ' "' + words + '"' : text;
  };
  const boxOf = () => {
    if (node === element) return element.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(node);
    return range.getBoundingClientRect();
  };
  const hitAt = (doc, x, y) => {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  const contains = (outer, inner) => {
    for (let at = inner; at; at = at.parentNode || at.host) if (at === outer) return true;
    return false;
  };
  let last = null;
  const check = () => {
    if (!node.isConnected || !element) return "detached";
    const style = getComputedStyle(element);
    let box = boxOf();
    if (box.width === 0 || box.height === 0 || style.visibility !== "visible" || !element.checkVisibility()) return "hidden";
    if (checks.enabled && (element.matches(":disabled") || element.closest('[aria-disabled="true"]'))) return "disabled";
    if (checks.editable && !(element.isContentEditable || (/^(INPUT|TEXTAREA)$/.test(element.tagName) && !element.readOnly))) return "not editable";
    const view = element.ownerDocument.defaultView;
    const pointOf = (of) => ({ x: of.left + (checks.position ? checks.position.x : of.width / 2), y: of.top + (checks.position ? checks.position.y : of.height / 2) });
    const at = pointOf(box);
    // The point to act at must be in the viewport (an element taller than the viewport may be in view, its centre not).
    if (at.x < 0 || at.y < 0 || at.x >= view.innerWidth || at.y >= view.innerHeight) {
      element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      box = boxOf();
    }
    const animating = element.ownerDocument.getAnimations().length > 0;
    const moved = !last || last.x !== box.x || last.y !== box.y || last.width !== box.width || last.height !== box.height;
    last = box;
    if (animating && moved) return "moving";
    const { x, y } = pointOf(box);
    if (checks.hitTest) {
      const hit = hitAt(element.ownerDocument, x, y);
      if (!hit) return "hidden";
      if (!contains(element, hit)) return "covered by " + describe(hit);
    }
    const chain = (${CHAIN_ORIGIN})(element.ownerDocument.defaultView);
    return { x: x + chain.x, y: y + chain.y, framed: chain.framed };
  };
  for (;;) {
    const state = check();
    if (typeof state !== "string") return state;
    if (performance.now() >= end) return { reason: state };
    await nextFrame();
  }
}`;

/**
 * Waits, within the call's budget, until the element can be acted on as a user would, and answers where to act;
 * TIMEOUT with `data.reason` when it never could.
 */
export async function actionPoint(scope: ObjectScope, element: ElementHandle, checks: ActionChecks): Promise<Point> {
  const { budget } = scope;
  const pageTimeoutMs = Math.max(0, budget.remainingMs() - ANSWER_MARGIN_MS);
  const { result, exceptionDetails } = await element.session.send(
    "Runtime.callFunctionOn",
    {
      functionDeclaration: WAIT_ACTIONABLE,
      objectId: element.objectId,
      arguments: [{ value: checks }, { value: pageTimeoutMs }],
      awaitPromise: true,
      returnByValue: true,
    },
    { budget },
  );
  if (exceptionDetails)
    throw new Error(`the actionability check failed in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  const answer = result.value as PagePoint | { reason: string };
  if ("reason" in answer)
    throw notActionable(budget, answer.reason, `the element was not actionable within ${budget.timeoutMs} ms: ${answer.reason}`);
  return pointInTab(scope, element, answer);
}

/** The TIMEOUT of an action whose element was not there or not actionable when its budget ended, why in `data.reason`. */
export function notActionable(budget: Budget, reason: string, message: string): HubError {
  return new HubError("TIMEOUT", message, { timeoutMs: budget.timeoutMs, terminated: false, reason });
}
