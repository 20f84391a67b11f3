import { HubError } from "../errors.js";
import { requiredElementOf } from "../runtime/act.js";
import { fillElement } from "../runtime/form-fields.js";
import { actOn, defineMethod } from "../services.js";

/** `fill`: replaces the text of an input, textarea or contenteditable element as a user would. */
export const fill = defineMethod("fill", { runs: "tab" }, async (params, call) => {
  const element = requiredElementOf(params, "fill");
  if ("x" in element) {
    throw new HubError("INVALID_PARAMS", "invalid params for fill: name the field by ref or selector, not by a point", {
      errors: [{ path: "/x", message: "fill takes ref or selector" }],
    });
  }
  return actOn(call, { target: params.target, method: "fill" }, (scope) => fillElement(scope, element, params.value));
});
