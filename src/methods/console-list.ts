import { defineMethod } from "../services.js";

/** `console.list`: what the tab logged recently, oldest first. */
export const consoleList = defineMethod("console.list", { runs: "tab", needs: "read", reads: true }, (params, call) => {
  const entry = call.services.clients.resolve(params.target, call.connection);
  return Promise.resolve({ messages: call.services.console.list(entry.tabId, params.limit, params.sinceNavigation) });
});
