import { HubError, isHubError } from "../errors.js";
import { referencedElementOf } from "../runtime/act.js";
import { setField } from "../runtime/form-fields.js";
import { actOn, defineMethod } from "../services.js";

/** `fillForm`: fills text fields, checkboxes, radios and selects in one call, in order. */
export const fillForm = defineMethod("fillForm", { runs: "tab" }, async (params, call) => {
  const fields = params.fields.map((field, index) => {
    const element = referencedElementOf(field, "fillForm", `/fields/${index}`);
    return { element, value: field.value, index };
  });
  return actOn(call, { target: params.target, method: "fillForm", changes: params.changes }, async (scope) => {
    for (const { element, value, index } of fields) {
      try {
        await setField(scope, element, value);
      } catch (error) {
        if (!isHubError(error)) throw error;
        throw new HubError(error.errorName, `field ${index}: ${error.message}`, { ...(error.data as object), field: index });
      }
    }
  });
});
