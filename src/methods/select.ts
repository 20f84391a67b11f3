import { HubError } from "../errors.js";
import { requiredElementOf } from "../runtime/act.js";
import { selectOptions } from "../runtime/form-fields.js";
import { actOn, defineMethod } from "../services.js";

/** `select`: selects options of a `<select>` by value or label, and answers the values now selected. */
export const select = defineMethod("select", { runs: "tab" }, async (params, call) => {
  const element = requiredElementOf(params, "select");
  if ("x" in element) {
    throw new HubError("INVALID_PARAMS", "invalid params for select: name the select by ref or selector, not by a point", {
      errors: [{ path: "/x", message: "select takes ref or selector" }],
    });
  }
  let selected: string[] = [];
  const answer = await actOn(call, { target: params.target, method: "select" }, async (scope) => {
    selected = await selectOptions(scope, element, params.values);
  });
  return { ...answer, selected };
});
