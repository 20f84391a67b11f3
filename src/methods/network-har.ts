import { buildHar, type HarBody } from "../events/har.js";
import { defineMethod } from "../services.js";
import { HUB_VERSION } from "../version.js";

/** `network.har`: the tab's request log as a HAR 1.2 document; with `bodies`, the response bodies Chrome still keeps. */
export const networkHar = defineMethod("network.har", { runs: "tab", needs: "read", reads: true }, async (params, call) => {
  const entry = call.services.clients.resolve(params.target, call.connection);
  const entries = call.services.network.entries(entry.tabId);
  const bodies = new Map<string, HarBody>();
  if (params.bodies === true) {
    // Only the bodies need the tab's session.
    const tab = await call.services.pool.acquire(entry.tabId, call.budget);
    // Asked of Chrome all at once; kept in the log's order while they fit in maxSize characters together. One Chrome
    // let go is left out.
    const finished = entries.filter((request) => request.state === "finished");
    const answers = await Promise.all(
      finished.map((request) =>
        tab.send("Network.getResponseBody", { requestId: request.requestId }, { budget: call.budget }).catch(() => null),
      ),
    );
    let left = params.maxSize ?? call.services.config.maxResultBytes;
    answers.forEach((body, index) => {
      if (!body || body.body.length > left) return;
      left -= body.body.length;
      bodies.set(finished[index]!.requestId, { text: body.body, base64: body.base64Encoded });
    });
  }
  return buildHar(entries, { name: "tabwire", version: HUB_VERSION }, bodies);
});
