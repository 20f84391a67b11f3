import { acquireTab, defineMethod, shownPage } from "../services.js";

/** `tabs.stop`: stops the tab's loading (a navigation waiting for its server is given up) and answers what it shows. */
export const tabsStop = defineMethod("tabs.stop", { runs: "tab", needs: "act", changesListings: true }, async (params, call) => {
  const { tab } = await acquireTab(call, params.target);
  await tab.sendWhenAttached("Page.stopLoading", undefined, call.budget);
  return shownPage(call, tab);
});
