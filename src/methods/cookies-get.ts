import { cookieOf, isSentTo, parseUrls, readCookies } from "../clients/client-cookies.js";
import { callerClient, defineMethod } from "../services.js";

/** `cookies.get`: a client's cookies (HttpOnly ones too), from its own browser context; optionally those sent to some URLs. */
export const cookiesGet = defineMethod("cookies.get", { runs: "client", needs: "read", reads: true }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "read cookies");
  const cookies = await readCookies(call.services, clientId, call.budget);
  const urls = params.urls && parseUrls(params.urls, "urls");
  return { cookies: cookies.filter((cookie) => !urls || urls.some((url) => isSentTo(cookie, url))).map(cookieOf) };
});
