import { normaliseHost, normalisePattern, type EgressRules } from "../egress-rules.js";

/** One connection the browser asks the proxy for: a host as the request names it, its port and scheme. */
export interface EgressRequest {
  host: string;
  port: number;
  /** `http` for a proxied request; a CONNECT tunnel is `https` (Chrome tunnels https, wss and ws the same way). */
  scheme: string;
}

/** Why a policy refuses a request: the rule that said no, as the operator wrote it (`block:*.evil.test`, `allow`, `ports`, ...). */
export type Refusal = string;

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
