import { goInHistory } from "../runtime/history-tab.js";
import { acquireTab, defineMethod, shownPage } from "../services.js";

/** `tabs.forward`: the next page of the tab's history, answered as navigate is. */
export const tabsForward = defineMethod(
  "tabs.forward",
  { runs: "tab", needs: "act", acts: true, changesListings: true },
  async (params, call) => {
    const { tab } = await acquireTab(call, params.target);
    await goInHistory(tab, { step: "forward", waitUntil: params.waitUntil }, call.budget);
    return shownPage(call, tab);
  },
);
