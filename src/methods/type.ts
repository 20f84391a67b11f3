import { elementOf } from "../runtime/act.js";
import { TabInput } from "../runtime/input.js";
import { actOn, defineMethod } from "../services.js";
import { focusElement } from "../runtime/focus.js";

/** `type`: types text a key event per character, into an element (focused first) or where the focus is. */
export const type = defineMethod("type", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const element = elementOf(params, "type");
  return actOn(call, { target: params.target, method: "type", changes: params.changes }, async (scope) => {
    if (element) await focusElement(scope, element);
    await new TabInput(scope.tab, call.budget).type(params.text, params.delay);
  });
});
