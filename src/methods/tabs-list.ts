import { defineMethod } from "../services.js";

interface TabsListParams {
  clientId?: string;
}

/** `tabs.list`: the page tabs the caller may see, optionally of one client. */
export const tabsList = defineMethod<TabsListParams>({
  name: "tabs.list",
  run: (params, call) => Promise.resolve({ tabs: call.services.clients.tabs(call.connection, params.clientId) }),
});
