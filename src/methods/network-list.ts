import { requestSummary } from "../events/network-log.js";
import { globMatcher } from "../runtime/url-matcher.js";
import { defineMethod } from "../services.js";

/** `network.list`: the tab's recent requests, newest last, optionally filtered by URL, resource type and status. */
export const networkList = defineMethod("network.list", { runs: "tab", needs: "read", reads: true }, async (params, call) => {
  const entry = call.services.clients.resolve(params.target, call.connection);
  const { filter = {} } = params;
  const matches = filter.url === undefined ? () => true : globMatcher(filter.url, { method: "network.list", path: "/filter/url" });
  const types = filter.resourceType === undefined ? null : new Set(filter.resourceType.map((type) => type.toLowerCase()));
  const all = call.services.network
    .entries(entry.tabId)
    .filter(
      (request) =>
        matches(request.url) &&
        (types === null || types.has(request.resourceType.toLowerCase())) &&
        (filter.statusMin === undefined || (request.status ?? 0) >= filter.statusMin) &&
        (filter.statusMax === undefined || (request.status ?? 0) <= filter.statusMax),
    );
  const limit = params.limit ?? 100;
  const requests = all.slice(-limit).map(requestSummary);
  return { requests, total: all.length };
});
