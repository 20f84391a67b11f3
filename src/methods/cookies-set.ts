import { ProtocolError } from "../cdp/callback-registry.js";
import { HubError } from "../errors.js";
import { callerClient, defineMethod } from "../services.js";

/** `cookies.set`: sets cookies in a client's browser context (made for it if it has none yet), HttpOnly ones too. */
export const cookiesSet = defineMethod("cookies.set", { runs: "here" }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "set cookies");
  params.cookies.forEach((cookie, index) => {
    if (cookie.url === undefined && cookie.domain === undefined) {
      const message = "needs url, or domain (and path)";
      throw new HubError("INVALID_PARAMS", `cookies[${index}] ${message}`, { errors: [{ path: `/cookies/${index}`, message }] });
    }
  });
  const { clients, browser } = call.services;
  const browserContextId = await clients.contexts.acquire(clientId, call.budget);
  const cookies = params.cookies.map((cookie) => ({ path: cookie.url === undefined ? "/" : undefined, ...cookie }));
  await browser
    .connection()
    .send("Storage.setCookies", { cookies, ...(browserContextId ? { browserContextId } : {}) }, { budget: call.budget })
    .catch((error: unknown) => {
      if (error instanceof ProtocolError) throw new HubError("INVALID_PARAMS", `Chrome refused the cookies: ${error.protocolMessage}`);
      throw error;
    });
  return { set: cookies.length };
});
