import { allows } from "../capabilities.js";
import { uptimeMs } from "../version.js";
import { defineMethod } from "../services.js";

/** `hub.stats`: calls and errors per client the caller may see; the whole hub's figures for a full token with `admin`. */
export const hubStats = defineMethod("hub.stats", { runs: "here", needs: "read", reads: true }, (_params, call) => {
  const { clients, metrics, browser, agents, pool } = call.services;
  const seen = clients.clients(call.connection).map(({ clientId }) => ({ clientId, ...metrics.clientCalls.of(clientId) }));
  const stats = { uptimeMs: uptimeMs(), browser: browser.isUp ? ("connected" as const) : ("down" as const), clients: seen };
  if (call.connection.scope !== null || !allows(call.connection.capabilities, "admin")) return Promise.resolve(stats);
  const hub = {
    calls: metrics.clientCalls.hub(),
    connections: metrics.connectionCounts(),
    tabs: clients.tabs(call.connection).length,
    agents: agents.all().length,
    sessions: pool.stats().live,
    rssBytes: process.memoryUsage.rss(),
  };
  return Promise.resolve({ ...stats, hub });
});
