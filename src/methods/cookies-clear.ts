import { isSentTo, parseUrls, readCookies } from "../clients/client-cookies.js";
import { callerClient, defineMethod } from "../services.js";

/** `cookies.clear`: removes a client's cookies, or only those a request to one of `urls` would carry. */
export const cookiesClear = defineMethod("cookies.clear", { runs: "client", needs: "act" }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "clear cookies");
  const { clients, browser } = call.services;
  const context = clients.contexts.existing(clientId);
  const cookies = await readCookies(call.services, clientId, call.budget);
  if (context === null || cookies.length === 0) return { cleared: 0 };
  const urls = params.urls && parseUrls(params.urls, "urls");
  if (!urls) {
    await browser.connection().send("Storage.clearCookies", context, { budget: call.budget });
    return { cleared: cookies.length };
  }
  const going = cookies.filter((cookie) => urls.some((url) => isSentTo(cookie, url)));
  // A cookie set again with an expiry in the past is removed.
  const expired = going.map(({ name, value, domain, path, secure, httpOnly }) => ({
    name,
    value,
    domain,
    path,
    secure,
    httpOnly,
    expires: 1,
  }));
  if (expired.length > 0) await browser.connection().send("Storage.setCookies", { cookies: expired, ...context }, { budget: call.budget });
  return { cleared: going.length };
});
