import { defineMethod } from "../services.js";

/** `clients.list`: the clients the caller may see (of the whole cluster when there is one), with their tabs. */
export const clientsList = defineMethod("clients.list", { runs: "here", needs: "read", reads: true }, async (_params, call) => {
  const { clients, cluster } = call.services;
  // Cluster (Redis): every instance's clients.
  if (cluster) return { clients: await cluster.clients(call.connection, call.budget) };
  return { clients: clients.clients(call.connection) };
});
