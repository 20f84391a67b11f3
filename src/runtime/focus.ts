import type { ActionScope, ElementSpec } from "./act.js";
import { actionPoint } from "./actionable.js";
import { TabInput } from "./input.js";

const FOCUS = "function () { (this.nodeType === Node.TEXT_NODE ? this.parentElement : this).focus(); }";

/** Focuses an element for keys to go to it, once it is visible and enabled; a point is clicked instead. */
export async function focusElement(scope: ActionScope, element: ElementSpec): Promise<void> {
  if ("x" in element) return new TabInput(scope.tab, scope.budget).click(element, { button: "left", clickCount: 1, modifiers: [] });
  const objectId = await scope.object(element);
  await actionPoint(scope, objectId, { enabled: true, editable: false, hitTest: false });
  await scope.callFunction(objectId, FOCUS, []);
}
