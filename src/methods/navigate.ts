import { navigateTab } from "../runtime/navigate-tab.js";
import { checkUrlAllowed } from "../runtime/url-policy.js";
import { acquireTab, defineMethod, shownPage } from "../services.js";

/** `navigate`: loads a URL in the tab and answers with where it ended up. */
export const navigate = defineMethod("navigate", { runs: "tab", needs: "act", acts: true, changesListings: true }, async (params, call) => {
  checkUrlAllowed(params.url, call.services.config);
  const { entry, tab } = await acquireTab(call, params.target);
  const since = Date.now();
  await navigateTab(tab, params, call.budget).catch((error: unknown) => {
    throw call.services.egress.explain(error, entry.clientId, { url: params.url, since });
  });
  return shownPage(call, tab);
});
