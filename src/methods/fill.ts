import { referencedElementOf } from "../runtime/act.js";
import { fillElement } from "../runtime/form-fields.js";
import { actOn, defineMethod } from "../services.js";

/** `fill`: replaces the text of an input, textarea or contenteditable element as a user would. */
export const fill = defineMethod("fill", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const element = referencedElementOf(params, "fill");
  return actOn(call, { target: params.target, method: "fill", changes: params.changes }, (scope) =>
    fillElement(scope, element, params.value),
  );
});
