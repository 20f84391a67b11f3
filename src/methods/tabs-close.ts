import { defineMethod } from "../services.js";

/** `tabs.close`: closes the tab and answers once it is gone from tabs.list. */
export const tabsClose = defineMethod("tabs.close", { runs: "tab", needs: "act", changesListings: true }, async (params, call) => {
  const { browser, clients } = call.services;
  const { tabId } = clients.resolve(params.target, call.connection);
  await browser.closePage(tabId, call.budget.signal);
  return { closed: true };
});
