import { HubError } from "../errors.js";
import type { ValidatedParams } from "../protocol/types.js";
import { waitFor as waitForCondition, type WaitCondition } from "../runtime/wait-for.js";
import { acquireTab, defineMethod } from "../services.js";

const CONDITIONS = ["text", "textGone", "selector", "url", "loadState"] as const;

/** `wait.for`: answers once the page shows a text, loses one, has an element in a state, a URL or a load state. */
export const waitFor = defineMethod("wait.for", { runs: "tab", needs: "read", reads: true }, async (params, call) => {
  const condition = conditionOf(params);
  const { entry, tab } = await acquireTab(call, params.target);
  // The tab's client takes its turn on the regular expression thread.
  return { ok: true, waitedMs: await waitForCondition(tab, condition, { clientId: entry.clientId, budget: call.budget }) };
});

function conditionOf(params: ValidatedParams<"wait.for">): WaitCondition {
  const given = CONDITIONS.filter((name) => params[name] !== undefined);
  if (given.length !== 1) {
    const message =
      given.length === 0 ? "give one of text, textGone, selector, url, loadState" : `give one condition, not ${given.join(" and ")}`;
    throw new HubError("INVALID_PARAMS", `invalid params for wait.for: ${message}`, {
      errors: [{ path: `/${given[1] ?? "text"}`, message }],
    });
  }
  if (params.text !== undefined) return { text: params.text };
  if (params.textGone !== undefined) return { textGone: params.textGone };
  if (params.selector !== undefined) return { selector: params.selector, state: params.state };
  if (params.url !== undefined) return { url: params.url };
  return { loadState: params.loadState as "load" };
}
