import { domainToASCII } from "node:url";
import { isIP } from "node:net";
import type { EgressRules } from "../egress-rules.js";

/** One connection the browser asks the proxy for: a host as the request names it, its port and scheme. */
export interface EgressRequest {
  host: string;
  port: number;
  /** `http` for a proxied request; a CONNECT tunnel is `https` (Chrome tunnels https, wss and ws the same way). */
  scheme: string;
}

/** Why a policy refuses a request: the rule that said no, as the operator wrote it (`block:*.evil.test`, `allow`, `ports`, ...). */
export type Refusal = string;

/**
 * A host name as Chrome and DNS see it: lower case, punycode for IDN, no trailing dot, IPv6 without brackets;
 * null when it is not a name or an address.
 */
export function normaliseHost(raw: string): string | null {
  let host = raw.trim();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (isIP(host) !== 0) return host.toLowerCase();
  host = host.replace(/\.+$/, "");
  // domainToASCII parses as a URL would: "a/b" would come back as "a". Only name characters get that far.
  if (host === "" || host.length > 253 || /[\s/\\?#@:%*[\]]/.test(host)) return null;
  const ascii = domainToASCII(host);
  if (ascii === "" || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(ascii)) return null;
  if (ascii.split(".").some((label) => label.length > 63)) return null;
  return ascii;
}

/**
 * A rule's host pattern normalised: an exact name or address, or `*.name` (the name and every subdomain);
 * null when it is neither.
 */
export function normalisePattern(raw: string): string | null {
  if (raw.startsWith("*.")) {
    const base = normaliseHost(raw.slice(2));
    return base === null || isIP(base) !== 0 ? null : `*.${base}`;
  }
  return normaliseHost(raw);
}

/** Whether a normalised host matches a normalised pattern. */
export function hostMatches(pattern: string, host: string): boolean {
  if (!pattern.startsWith("*.")) return pattern === host;
  const base = pattern.slice(2);
  return host === base || host.endsWith(`.${base}`);
}

/** Whether `allow` names this very host (not through a wildcard): the one way to reach a private address. */
export function allowsExactly(rules: EgressRules, host: string): boolean {
  return (rules.allow ?? []).some((pattern) => normalisePattern(pattern) === host);
}

/** The rule of `rules` that refuses the request before any DNS, or null when these rules let it through. */
export function refusalOf(rules: EgressRules, request: EgressRequest): Refusal | null {
  const host = normaliseHost(request.host);
  if (host === null) return "host";
  const blocked = (rules.block ?? []).find((pattern) => hostMatches(normalisePattern(pattern) ?? "", host));
  if (blocked !== undefined) return `block:${blocked}`;
  if (rules.allow && !rules.allow.some((pattern) => hostMatches(normalisePattern(pattern) ?? "", host))) return "allow";
  if (rules.ports && !rules.ports.includes(request.port)) return "ports";
  if (rules.schemes && !schemeAllowed(rules.schemes, request.scheme)) return "schemes";
  return null;
}

function schemeAllowed(schemes: readonly string[], scheme: string): boolean {
  if (scheme === "http") return schemes.includes("http");
  // A CONNECT tunnel may carry https, wss or ws: the proxy cannot tell which, so any of them lets it through.
  return schemes.some((allowed) => allowed === "https" || allowed === "wss" || allowed === "ws");
}
