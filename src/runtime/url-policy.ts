import { HubError } from "../errors.js";

const ALWAYS_ALLOWED = new Set(["http", "https", "about", "data"]);

/** What the URL policy reads from the hub's configuration. */
export interface UrlPolicy {
  allowUrlSchemes: ReadonlySet<string>;
  evaluateEnabled: boolean;
}

/**
 * Refuses URLs whose scheme is not http, https, about or data, unless ALLOW_URL_SCHEMES names it; `javascript:`
 * runs code, so it is refused whenever EVALUATE_ENABLED=false, whatever ALLOW_URL_SCHEMES says.
 */
export function checkUrlAllowed(url: string, policy: UrlPolicy): void {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  if (!match?.[1]) {
    throw new HubError("INVALID_PARAMS", `"${url.slice(0, 200)}" is not an absolute URL; include the scheme, e.g. https://example.com`, {
      errors: [{ path: "/url", message: "must be an absolute URL" }],
    });
  }
  const scheme = match[1].toLowerCase();
  if (scheme === "javascript" && !policy.evaluateEnabled) {
    throw new HubError("FORBIDDEN", "javascript: URLs run code, and running code is turned off on this hub (EVALUATE_ENABLED=false)");
  }
  if (!ALWAYS_ALLOWED.has(scheme) && !policy.allowUrlSchemes.has(scheme)) {
    throw new HubError("FORBIDDEN", `${scheme}: URLs are not allowed; the hub's operator can allow them with ALLOW_URL_SCHEMES=${scheme}`);
  }
}
