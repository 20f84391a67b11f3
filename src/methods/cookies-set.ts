import { writeCookies } from "../clients/client-cookies.js";
import { HubError } from "../errors.js";
import { callerClient, defineMethod } from "../services.js";

/** `cookies.set`: sets cookies in a client's browser context (made for it if it has none yet), HttpOnly ones too. */
export const cookiesSet = defineMethod("cookies.set", { runs: "client", needs: "act" }, async (params, call) => {
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
  const context = browserContextId ? { browserContextId } : {};
  await writeCookies(browser, { cookies, context, what: "the cookies" }, call.budget);
  return { set: cookies.length };
});
