import { referencedElementOf } from "../runtime/act.js";
import { selectOptions } from "../runtime/form-fields.js";
import { actOn, defineMethod } from "../services.js";

/** `select`: selects options of a `<select>` by value or label, and answers the values now selected. */
export const select = defineMethod("select", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const element = referencedElementOf(params, "select");
  let selected: string[] = [];
  const answer = await actOn(call, { target: params.target, method: "select", changes: params.changes }, async (scope) => {
    selected = await selectOptions(scope, element, params.values);
  });
  return { ...answer, selected };
});
