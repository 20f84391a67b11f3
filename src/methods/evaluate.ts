import { HubError } from "../errors.js";
import { evaluateInTab } from "../runtime/evaluate-in-tab.js";
import { acquireTab, defineMethod } from "../services.js";

/** `evaluate`: runs JavaScript in the tab's page and returns its (awaited) value. */
export const evaluate = defineMethod("evaluate", { runs: "tab", needs: "script" }, async (params, call) => {
  if (!call.services.config.evaluateEnabled) {
    throw new HubError("FORBIDDEN", "evaluate is turned off on this hub (EVALUATE_ENABLED=false)");
  }
  const { tab } = await acquireTab(call, params.target);
  return evaluateInTab(tab, { ...params, maxSize: params.maxSize ?? call.services.config.maxResultBytes }, call.budget);
});
