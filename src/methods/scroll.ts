import { elementOf } from "../runtime/act.js";
import { TabInput } from "../runtime/input.js";
import { actOn, defineMethod } from "../services.js";

const SCROLL_INTO_VIEW = `function () {
  const el = this.nodeType === Node.TEXT_NODE ? this.parentElement : this;
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
}`;
const VIEWPORT_CENTRE = "({ x: innerWidth / 2, y: innerHeight / 2 })";

/** `scroll`: an element into view, or the mouse wheel by deltas at an element, a point or the viewport's centre. */
export const scroll = defineMethod("scroll", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const element = elementOf(params, "scroll");
  const delta = { x: params.deltaX, y: params.deltaY };
  return actOn(call, { target: params.target, method: "scroll", changes: params.changes }, async (scope) => {
    if (delta.x === 0 && delta.y === 0) {
      if (element && !("x" in element)) await scope.callFunction(await scope.object(element), SCROLL_INTO_VIEW, []);
      return;
    }
    const point = element
      ? await scope.point(element, { enabled: false, editable: false, hitTest: false })
      : await scope.evaluate<{ x: number; y: number }>(VIEWPORT_CENTRE);
    await new TabInput(scope.tab, call.budget).wheel(point, delta);
  });
});
