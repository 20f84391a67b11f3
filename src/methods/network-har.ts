import { buildHar, type HarBody } from "../events/har.js";
import { acquireTab, defineMethod } from "../services.js";
import { HUB_VERSION } from "../version.js";

/** `network.har`: the tab's request log as a HAR 1.2 document; with `bodies`, the response bodies Chrome still keeps. */
export const networkHar = defineMethod("network.har", { runs: "tab" }, async (params, call) => {
  const { entry, tab } = await acquireTab(call, params.target);
  const entries = call.services.network.entries(entry.tabId);
  const bodies = new Map<string, HarBody>();
  if (params.bodies === true) {
    // Each body Chrome still keeps, cut at maxSize characters all together; one it let go is left out.
    let left = params.maxSize ?? call.services.config.maxResultBytes;
    for (const request of entries) {
      if (left <= 0 || request.state !== "finished") continue;
      const body = await tab.send("Network.getResponseBody", { requestId: request.requestId }, { budget: call.budget }).catch(() => null);
      if (!body || body.body.length > left) continue;
      left -= body.body.length;
      bodies.set(request.requestId, { text: body.body, base64: body.base64Encoded });
    }
  }
  return buildHar(entries, { name: "tabwire", version: HUB_VERSION }, bodies);
});
