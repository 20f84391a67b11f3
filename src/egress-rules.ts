import { isIP } from "node:net";
import { domainToASCII } from "node:url";

/**
 * The shape of an egress policy (issue 35): where a client's browser context may connect. Read from ACCESS_FILE for
 * a token's clients and from `clients.configure {policy}` for one client; a request must pass every policy that
 * applies to its client, so a client can narrow its token's policy and never widen it.
 */
export interface EgressRules {
  /** Hosts the context may reach: exact names or `*.example.com` (the name itself and every subdomain); absent: any. */
  allow?: readonly string[];
  /** Hosts it may never reach, same forms; a block wins over an allow. */
  block?: readonly string[];
  /** Ports it may reach; absent: any. */
  ports?: readonly number[];
  /** Schemes it may use (`http`, `https`, `ws`, `wss`); absent: any. */
  schemes?: readonly string[];
  /** Refuse loopback, link-local and private addresses after DNS resolution unless `allow` names that very host; default true. */
  blockPrivateNetworks?: boolean;
}

/** A named policy of ACCESS_FILE: egress rules and an upstream proxy the client's traffic leaves through. */
export interface ClientPolicy {
  egress?: EgressRules;
  /** `http://user:pass@host:port`: chained behind the policy proxy. */
  upstreamProxy?: string;
}

/** What a client set itself with clients.configure: policies that narrow its token's, and an upstream proxy. */
export interface OwnEgress {
  /** Every policy it gave: each narrows, none widens (a request must pass them all). */
  policies: ClientPolicy[];
  upstreamProxy?: string;
}

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
