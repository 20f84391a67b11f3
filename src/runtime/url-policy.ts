import { HubError } from "../errors.js";

const ALWAYS_ALLOWED = new Set(["http", "https", "about", "data"]);

/** Refuses URLs whose scheme is not http, https, about or data, unless ALLOW_URL_SCHEMES names it. */
export function checkUrlAllowed(url: string, allowed: ReadonlySet<string>): void {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  if (!match?.[1]) {
    throw new HubError("INVALID_PARAMS", `"${url.slice(0, 200)}" is not an absolute URL; include the scheme, e.g. https://example.com`, {
      errors: [{ path: "/url", message: "must be an absolute URL" }],
    });
  }
  const scheme = match[1].toLowerCase();
  if (!ALWAYS_ALLOWED.has(scheme) && !allowed.has(scheme)) {
    throw new HubError("FORBIDDEN", `${scheme}: URLs are not allowed; the hub's operator can allow them with ALLOW_URL_SCHEMES=${scheme}`);
  }
}
