import { defineMethod } from "../services.js";

/** `tabs.activate`: brings the tab to the front. */
export const tabsActivate = defineMethod("tabs.activate", { runs: "tab", needs: "act" }, async (params, call) => {
  const { browser, clients } = call.services;
  const { tabId } = clients.resolve(params.target, call.connection);
  await browser.connection().send("Target.activateTarget", { targetId: tabId }, { budget: call.budget });
  clients.activity.activated(tabId);
  return { activated: true };
});
