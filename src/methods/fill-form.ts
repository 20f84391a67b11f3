import { HubError, isHubError } from "../errors.js";
import { referencedElementOf } from "../runtime/act.js";
import { checkField, setField } from "../runtime/form-fields.js";
import { actOn, defineMethod } from "../services.js";

/**
 * `fillForm`: fills text fields, checkboxes, radios and selects in one call, in order, once every field was found and
 * checked to take its value: a form with one wrong field is left as it was.
 */
export const fillForm = defineMethod("fillForm", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const fields = params.fields.map((field, index) => {
    const element = referencedElementOf(field, "fillForm", `/fields/${index}`);
    return { element, value: field.value, index };
  });
  return actOn(call, { target: params.target, method: "fillForm", changes: params.changes }, async (scope) => {
    const values: (string | boolean)[] = [];
    for (const { element, value, index } of fields) values.push(await atField(index, () => checkField(scope, element, value), true));
    for (const { element, index } of fields) await atField(index, () => setField(scope, element, values[index] as string | boolean));
  });
});

/** Runs one field's step; its HubError names the field (message, `data.field`, and for a check the value's path). */
async function atField<T>(index: number, step: () => Promise<T>, isCheck = false): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!isHubError(error)) throw error;
    if (isCheck && error.errorName === "INVALID_PARAMS") {
      const message = `invalid params for fillForm: field ${index}: ${error.message}; nothing was filled`;
      throw new HubError("INVALID_PARAMS", message, { errors: [{ path: `/fields/${index}`, message: error.message }], field: index });
    }
    throw new HubError(error.errorName, `field ${index}: ${error.message}`, { ...(error.data as object), field: index });
  }
}
