import type { TargetKind } from "./forward-errors.js";

const AGENT_PREFIX = "agent:";
const CLIENT_PREFIX = "client:";
const EGRESS_PREFIX = "egress:";

/**
 * What an instance can claim: a tab `clientId:tabId` and the agent of that tab (claimed apart, since an agent may
 * connect to another instance than the one whose Chrome holds its tab), a persistent client it keeps (`client`), and
 * a client whose own egress policy it holds (`egress`: that client's browser context is made only there).
 */
export type ClaimKind = TargetKind | "egress";

/** The registry's name for what an instance holds. */
export function claimOf(kind: ClaimKind, target: string): string {
  return `${kind}:${target}`;
}

/** The agent (`clientId:tabId`) a claim names, or null for a tab's claim. */
export function agentOfClaim(claim: string): string | null {
  return claim.startsWith(AGENT_PREFIX) ? claim.slice(AGENT_PREFIX.length) : null;
}

/** The client whose own egress policy a claim names, or null for any other claim. */
export function egressOfClaim(claim: string): string | null {
  return claim.startsWith(EGRESS_PREFIX) ? claim.slice(EGRESS_PREFIX.length) : null;
}

/** The persistent client a claim names (the instance that keeps its state), or null for a tab's or an agent's claim. */
export function clientOfClaim(claim: string): string | null {
  return claim.startsWith(CLIENT_PREFIX) ? claim.slice(CLIENT_PREFIX.length) : null;
}
