import { buildHar } from "../events/har.js";
import { defineMethod } from "../services.js";
import { HUB_VERSION } from "../version.js";

/** `network.har`: the tab's request log as a HAR 1.2 document (headers and timings; bodies are network.get's). */
export const networkHar = defineMethod("network.har", { runs: "tab" }, async (params, call) => {
  const entry = call.services.clients.resolve(params.target, call.connection);
  return buildHar(call.services.network.entries(entry.tabId), { name: "tabwire", version: HUB_VERSION });
});
