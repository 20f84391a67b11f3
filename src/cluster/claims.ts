import type { TargetKind } from "./forward-errors.js";

const AGENT_PREFIX = "agent:";
const CLIENT_PREFIX = "client:";

/**
 * The registry's name for what an instance holds: the tab `clientId:tabId` and the agent of that tab are claimed
 * apart, since an agent may connect to another instance than the one whose Chrome holds its tab.
 */
export function claimOf(kind: TargetKind | "client", target: string): string {
  return `${kind}:${target}`;
}

/** The agent (`clientId:tabId`) a claim names, or null for a tab's claim. */
export function agentOfClaim(claim: string): string | null {
  return claim.startsWith(AGENT_PREFIX) ? claim.slice(AGENT_PREFIX.length) : null;
}

/** The persistent client a claim names (the instance that keeps its state), or null for a tab's or an agent's claim. */
export function clientOfClaim(claim: string): string | null {
  return claim.startsWith(CLIENT_PREFIX) ? claim.slice(CLIENT_PREFIX.length) : null;
}
