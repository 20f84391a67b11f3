import type { Protocol } from "devtools-protocol";
import { HubError } from "../errors.js";
import type { Cookie } from "../protocol/types.js";
import { callerClient, defineMethod } from "../services.js";

/** `cookies.get`: a client's cookies (HttpOnly ones too), from its own browser context; optionally those sent to some URLs. */
export const cookiesGet = defineMethod("cookies.get", { runs: "here" }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "read cookies");
  const { clients, browser } = call.services;
  const context = clients.contexts.existing(clientId);
  // A client without a browser context has no cookies: reading them makes no context.
  if (context === null) return { cookies: [] };
  const { cookies } = await browser
    .connection()
    .send("Storage.getCookies", context, { budget: call.budget })
    // A context disposed meanwhile (idle past CLIENT_IDLE_MS) took its cookies with it.
    .catch((error: unknown) => {
      if (clients.contexts.existing(clientId) === null) return { cookies: [] };
      throw error;
    });
  const urls = params.urls?.map(parseUrl);
  return { cookies: cookies.filter((cookie) => !urls || urls.some((url) => isSentTo(cookie, url))).map(cookieOf) };
});

function parseUrl(url: string, index: number): URL {
  try {
    return new URL(url);
  } catch {
    const message = "is not an absolute URL (https://host/path)";
    throw new HubError("INVALID_PARAMS", `urls[${index}] ${message}`, { errors: [{ path: `/urls/${index}`, message }] });
  }
}

function cookieOf(cookie: Protocol.Network.Cookie): Cookie {
  const { name, value, domain, path, expires, httpOnly, secure, session, sameSite } = cookie;
  return { name, value, domain, path, expires, httpOnly, secure, session, ...(sameSite ? { sameSite } : {}) };
}

// Whether a request to `url` carries the cookie (RFC 6265 section 5.4: domain match, path match, Secure).
function isSentTo(cookie: Protocol.Network.Cookie, url: URL): boolean {
  const host = url.hostname;
  const domain = cookie.domain.startsWith(".") ? cookie.domain.slice(1) : cookie.domain;
  const domainMatches = host === domain || (cookie.domain.startsWith(".") && host.endsWith(`.${domain}`));
  const path = cookie.path || "/";
  const pathMatches = url.pathname === path || url.pathname.startsWith(path.endsWith("/") ? path : `${path}/`);
  return domainMatches && pathMatches && (!cookie.secure || url.protocol === "https:");
}
