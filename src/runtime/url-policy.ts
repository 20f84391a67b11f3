import { HubError } from "../errors.js";

const ALWAYS_ALLOWED = new Set(["http", "https", "about", "data"]);
const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "ws:": "80", "https:": "443", "wss:": "443" };
// Names Chrome resolves to its own machine: the loopback range, the unspecified addresses (which Linux connects to
// the machine itself), and localhost with its subdomains.
const SAME_MACHINE = /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\]|\[::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0)\])$/;

/** What the URL policy reads from the hub's configuration. */
export interface UrlPolicy {
  allowUrlSchemes: ReadonlySet<string>;
  evaluateEnabled: boolean;
  /** CDP_URL: the debugging address of the Chrome the user runs, which no tab may open; null for the embedded Chrome. */
  cdpUrl: string | null;
}

/**
 * Refuses URLs whose scheme is not http, https, about or data, unless ALLOW_URL_SCHEMES names it; `javascript:`
 * runs code, so it is refused whenever EVALUATE_ENABLED=false, whatever ALLOW_URL_SCHEMES says. With CDP_URL, the
 * debugging address's host:port is refused too: a tab there could list, open and close every tenant's tabs.
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
  if (policy.cdpUrl !== null) checkNotDebuggingAddress(url, policy.cdpUrl);
}

/**
 * Refuses a URL on the debugging port of CDP_URL's Chrome: on its host, or on any name of the machine Chrome runs
 * on (from there, loopback reaches the port however the hub names it). `view-source:` is looked through.
 */
function checkNotDebuggingAddress(url: string, cdpUrl: string): void {
  const target = hostAndPort(url.replace(/^view-source:/i, ""));
  const endpoint = hostAndPort(cdpUrl);
  if (!target || !endpoint || target.port !== endpoint.port) return;
  if (target.host === endpoint.host || SAME_MACHINE.test(target.host)) {
    throw new HubError(
      "FORBIDDEN",
      `${target.host}:${target.port} is the debugging address of the hub's Chrome (CDP_URL): a tab there could drive every tab past the hub's rules, so tabs may not open it`,
    );
  }
}

function hostAndPort(url: string): { host: string; port: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const port = parsed.port || DEFAULT_PORTS[parsed.protocol];
  if (!parsed.hostname || port === undefined) return null;
  return { host: parsed.hostname.replace(/\.$/, ""), port };
}
