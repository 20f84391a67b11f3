import { requiredElementOf } from "../runtime/act.js";
import { TabInput } from "../runtime/input.js";
import { actOn, defineMethod } from "../services.js";

/** `hover`: moves the mouse over an element once it is actionable. */
export const hover = defineMethod("hover", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const element = requiredElementOf(params, "hover");
  return actOn(call, { target: params.target, method: "hover", changes: params.changes }, async (scope) => {
    const point = await scope.point(element, { enabled: false, editable: false, hitTest: true, position: params.position });
    await new TabInput(scope.tab, call.budget).move(point);
  });
});
