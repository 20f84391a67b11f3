import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `network.get`: one of the tab's requests with its headers and, when asked, its response body (base64 for binary). */
export const networkGet = defineMethod("network.get", { runs: "tab", needs: "read", reads: true }, async (params, call) => {
  const tabEntry = call.services.clients.resolve(params.target, call.connection);
  const request = call.services.network.entry(tabEntry.tabId, params.requestId);
  if (!request) {
    const message = "names no request of this tab (its log keeps the newest only; list them with network.list)";
    throw new HubError("INVALID_PARAMS", `requestId ${message}`, { errors: [{ path: "/requestId", message }] });
  }
  const { sentAt: _sentAt, ...shown } = request;
  if (params.body !== true) return { request: shown };
  const maxSize = params.maxSize ?? call.services.config.maxResultBytes;
  // Only a body needs the tab's session.
  const tab = await call.services.pool.acquire(tabEntry.tabId, call.budget);
  const body = await tab
    .send("Network.getResponseBody", { requestId: params.requestId }, { budget: call.budget })
    .then(({ body: data, base64Encoded }) => {
      const bytes = base64Encoded ? Math.floor((data.length * 3) / 4) : Buffer.byteLength(data);
      const truncated = data.length > maxSize;
      return { data: truncated ? data.slice(0, maxSize) : data, base64Encoded, bytes, truncated };
    })
    // Chrome keeps bodies only while the page holds them (a redirect, a failure or a newer page lets them go).
    .catch((error: Error) => ({ unavailable: error.message.replace(/^Network\.getResponseBody: /, "") }));
  return { request: shown, body };
});
