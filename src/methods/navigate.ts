import { navigateTab } from "../runtime/navigate-tab.js";
import { checkUrlAllowed } from "../runtime/url-policy.js";
import { acquireTab, defineMethod } from "../services.js";

/** `navigate`: loads a URL in the tab and answers with where it ended up. */
export const navigate = defineMethod("navigate", { runs: "tab", changesListings: true }, async (params, call) => {
  checkUrlAllowed(params.url, call.services.config);
  const { tab } = await acquireTab(call, params.target);
  await navigateTab(tab, params, call.budget);
  const { browser } = call.services;
  const { targetInfo } = await browser.connection().send("Target.getTargetInfo", { targetId: tab.tabId }, { budget: call.budget });
  browser.notePage(targetInfo);
  return { url: targetInfo.url, title: targetInfo.title };
});
