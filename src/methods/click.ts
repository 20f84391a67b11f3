import { requiredElementOf } from "../runtime/act.js";
import { TabInput } from "../runtime/input.js";
import { actOn, defineMethod } from "../services.js";

/** `click`: clicks an element with trusted mouse input once it is actionable, and answers what the click set off. */
export const click = defineMethod("click", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const element = requiredElementOf(params, "click");
  return actOn(call, { target: params.target, method: "click", changes: params.changes }, async (scope) => {
    const point = await scope.point(element, { enabled: true, editable: false, hitTest: true, position: params.position });
    await new TabInput(scope.tab, call.budget).click(point, params);
  });
});
