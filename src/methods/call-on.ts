import { HubError } from "../errors.js";
import { callOnElement, type ElementTarget } from "../runtime/call-on-element.js";
import type { ValidatedParams } from "../protocol/types.js";
import { acquireTab, defineMethod } from "../services.js";

const REFERENCES = ["ref", "selector", "backendNodeId"] as const;

/** `callOn`: calls a function on an element (a snapshot ref, a selector or a backendNodeId) or in the page. */
export const callOn = defineMethod("callOn", { runs: "tab", needs: "script" }, async (params, call) => {
  if (!call.services.config.evaluateEnabled) {
    throw new HubError("FORBIDDEN", "callOn is turned off on this hub (EVALUATE_ENABLED=false)");
  }
  const element = pickElement(params);
  const { tab } = await acquireTab(call, params.target);
  return callOnElement(tab, { ...params, element, maxSize: params.maxSize ?? call.services.config.maxResultBytes }, call.budget);
});

/** The one element reference of the params, or null; more than one is INVALID_PARAMS. */
function pickElement(params: ValidatedParams<"callOn">): ElementTarget {
  const given = REFERENCES.filter((name) => params[name] !== undefined);
  if (given.length > 1) {
    const errors = given.map((name) => ({ path: `/${name}`, message: "give only one of ref, selector and backendNodeId" }));
    throw new HubError(
      "INVALID_PARAMS",
      `invalid params for callOn: give only one of ref, selector and backendNodeId, not ${given.join(" and ")}`,
      { errors },
    );
  }
  if (params.ref !== undefined) return { ref: params.ref };
  if (params.selector !== undefined) return { selector: params.selector };
  if (params.backendNodeId !== undefined) return { backendNodeId: params.backendNodeId };
  return null;
}
