import { HubError } from "../errors.js";
import { elementOf } from "../runtime/act.js";
import { focusElement } from "../runtime/focus.js";
import { TabInput } from "../runtime/input.js";
import { parseChord } from "../runtime/keys.js";
import { actOn, defineMethod } from "../services.js";

/** `press`: presses a key or a chord (`Control+A`), on an element (focused first) or where the focus is. */
export const press = defineMethod("press", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const chord = parseChord(params.key);
  if (typeof chord === "string") {
    throw new HubError("INVALID_PARAMS", `invalid params for press: ${chord}`, { errors: [{ path: "/key", message: chord }] });
  }
  const element = elementOf(params, "press");
  return actOn(call, { target: params.target, method: "press", changes: params.changes }, async (scope) => {
    if (element) await focusElement(scope, element);
    await new TabInput(scope.tab, call.budget).press(chord);
  });
});
