import { reloadTab } from "../runtime/history-tab.js";
import { acquireTab, defineMethod, shownPage } from "../services.js";

/** `tabs.reload`: loads the tab's page again, answered as navigate is. */
export const tabsReload = defineMethod(
  "tabs.reload",
  { runs: "tab", needs: "act", acts: true, changesListings: true },
  async (params, call) => {
    const { tab } = await acquireTab(call, params.target);
    await reloadTab(tab, { waitUntil: params.waitUntil }, call.budget);
    return shownPage(call, tab);
  },
);
