import { defineMethod } from "../services.js";

interface TabsCloseParams {
  target: string;
}

/** `tabs.close`: closes the tab and answers once it is gone from tabs.list. */
export const tabsClose = defineMethod<TabsCloseParams>({
  name: "tabs.close",
  async run(params, call) {
    const { browser, clients } = call.services;
    const { tabId } = clients.resolve(params.target, call.connection);
    await browser.closePage(tabId, call.budget.signal);
    return { closed: true };
  },
});
