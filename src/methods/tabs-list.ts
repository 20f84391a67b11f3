import { defineMethod } from "../services.js";

/** `tabs.list`: the page tabs the caller may see (of the whole cluster when there is one), optionally of one client. */
export const tabsList = defineMethod("tabs.list", { runs: "here", needs: "read", reads: true }, async (params, call) => {
  const { clients, cluster } = call.services;
  // Cluster (Redis): every instance's tabs.
  if (cluster) return { tabs: await cluster.tabs(call.connection, params.clientId, call.budget) };
  return { tabs: clients.tabs(call.connection, params.clientId) };
});
