import { requiredElementOf } from "../runtime/act.js";
import { TabInput } from "../runtime/input.js";
import { actOn, defineMethod } from "../services.js";

/** `drag`: presses the mouse on one element, moves to another in steps, and releases there. */
export const drag = defineMethod("drag", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const from = requiredElementOf(params.from, "drag", "/from");
  const to = requiredElementOf(params.to, "drag", "/to");
  return actOn(call, { target: params.target, method: "drag", changes: params.changes }, async (scope) => {
    const start = await scope.point(from, { enabled: true, editable: false, hitTest: true });
    const end = await scope.point(to, { enabled: false, editable: false, hitTest: false });
    await new TabInput(scope.tab, call.budget).drag(start, end, params.steps);
  });
});
