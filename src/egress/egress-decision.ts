import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { ClientPolicy } from "../egress-rules.js";
import { normaliseHost } from "../egress-rules.js";
import { allowsExactly, refusalOf, type EgressRequest } from "./host-rules.js";
import { isPrivateAddress } from "./private-address.js";

/** A policy with the name its refusals carry: `client` (clients.configure) or `token` (the caller's token, ACCESS_FILE). */
export interface NamedPolicy {
  name: string;
  policy: ClientPolicy;
}

/** What the proxy does with a request: connect to `address` (null: let the upstream proxy resolve it), or refuse it. */
export type EgressDecision =
  { allowed: true; host: string; address: string | null } | { allowed: false; host: string; policy: string; rule: string };

/** How names are resolved: EGRESS_HOSTS first (for tests), then DNS; `viaUpstream` when an upstream proxy resolves them. */
export interface ResolveOptions {
  hosts: ReadonlyMap<string, string>;
  viaUpstream: boolean;
}

/**
 * Decides one request against every policy that applies (each must let it through): the host rules first, then,
 * for blockPrivateNetworks, the addresses the name resolves to, every one of them, so that a name which resolves
 * to a private address among public ones is refused too. The address it answers is the one to connect to.
 */
export async function decideEgress(
  policies: readonly NamedPolicy[],
  request: EgressRequest,
  options: ResolveOptions,
): Promise<EgressDecision> {
  const host = normaliseHost(request.host) ?? request.host;
  for (const { name, policy } of policies) {
    const rule = policy.egress ? refusalOf(policy.egress, request) : null;
    if (rule !== null) return { allowed: false, host, policy: name, rule };
  }
  let addresses: string[];
  try {
    addresses = await resolve(host, options.hosts);
  } catch {
    // Behind an upstream proxy a name this machine cannot resolve is the upstream's to resolve.
    if (options.viaUpstream && !guardsPrivate(policies)) return { allowed: true, host, address: null };
    return { allowed: false, host, policy: "dns", rule: "unresolved" };
  }
  for (const { name, policy } of policies) {
    const egress = policy.egress;
    if (!egress || egress.blockPrivateNetworks === false || allowsExactly(egress, host)) continue;
    if (addresses.some(isPrivateAddress)) return { allowed: false, host, policy: name, rule: "blockPrivateNetworks" };
  }
  return { allowed: true, host, address: options.viaUpstream ? null : (addresses[0] ?? null) };
}

function guardsPrivate(policies: readonly NamedPolicy[]): boolean {
  return policies.some(({ policy }) => policy.egress !== undefined && policy.egress.blockPrivateNetworks !== false);
}

async function resolve(host: string, hosts: ReadonlyMap<string, string>): Promise<string[]> {
  const mapped = hosts.get(host);
  if (mapped !== undefined) return [mapped];
  if (isIP(host) !== 0) return [host];
  const found = await lookup(host, { all: true, verbatim: true });
  if (found.length === 0) throw new Error(`${host} has no address`);
  return found.map((entry) => entry.address);
}
