import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { ProtocolError } from "../cdp/callback-registry.js";
import { HubError } from "../errors.js";
import type { Cookie } from "../protocol/types.js";
import type { Browser } from "../cdp/browser.js";
import type { ClientManager } from "./client-manager.js";

/** A client's cookies as Chrome keeps them, from its own browser context; none when it has no context (reading makes none). */
export async function readCookies(
  services: { clients: ClientManager; browser: Browser },
  clientId: string,
  budget: Budget,
): Promise<Protocol.Network.Cookie[]> {
  const { clients, browser } = services;
  const context = clients.contexts.existing(clientId);
  if (context === null) return [];
  const { cookies } = await browser
    .connection()
    .send("Storage.getCookies", context, { budget })
    // A context disposed meanwhile (idle past CLIENT_IDLE_MS) took its cookies with it.
    .catch((error: unknown) => {
      if (clients.contexts.existing(clientId) === null) return { cookies: [] };
      throw error;
    });
  return cookies;
}

/**
 * Sets cookies in a context (`{}`: Chrome's default one); a cookie Chrome refuses is the caller's INVALID_PARAMS,
 * `what` naming whose cookies they were.
 */
export async function writeCookies(
  browser: Browser,
  write: { cookies: Protocol.Network.CookieParam[]; context: { browserContextId?: string }; what: string },
  budget: Budget,
): Promise<void> {
  await browser
    .connection()
    .send("Storage.setCookies", { cookies: write.cookies, ...write.context }, { budget })
    .catch((error: unknown) => {
      if (error instanceof ProtocolError) throw new HubError("INVALID_PARAMS", `Chrome refused ${write.what}: ${error.protocolMessage}`);
      throw error;
    });
}

/** `urls` as URLs; one that is not absolute is INVALID_PARAMS naming its place in `field`. */
export function parseUrls(urls: readonly string[], field: string): URL[] {
  return urls.map((url, index) => {
    try {
      return new URL(url);
    } catch {
      const message = "is not an absolute URL (https://host/path)";
      throw new HubError("INVALID_PARAMS", `${field}[${index}] ${message}`, { errors: [{ path: `/${field}/${index}`, message }] });
    }
  });
}

/** A cookie as the hub answers it. */
export function cookieOf(cookie: Protocol.Network.Cookie): Cookie {
  const { name, value, domain, path, expires, httpOnly, secure, session, sameSite } = cookie;
  return { name, value, domain, path, expires, httpOnly, secure, session, ...(sameSite ? { sameSite } : {}) };
}

/** Whether a request to `url` carries the cookie (RFC 6265 section 5.4: domain match, path match, Secure). */
export function isSentTo(cookie: Protocol.Network.Cookie, url: URL): boolean {
  const host = url.hostname;
  const domain = cookie.domain.startsWith(".") ? cookie.domain.slice(1) : cookie.domain;
  const domainMatches = host === domain || (cookie.domain.startsWith(".") && host.endsWith(`.${domain}`));
  const path = cookie.path || "/";
  const pathMatches = url.pathname === path || url.pathname.startsWith(path.endsWith("/") ? path : `${path}/`);
  return domainMatches && pathMatches && (!cookie.secure || url.protocol === "https:");
}
