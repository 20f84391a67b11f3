import type { Caller, ClientEntry, TabEntry } from "../clients/client-manager.js";
import type { HubServices } from "../services.js";
import { agentOfClaim, claimOf } from "./claims.js";
import type { RemoteAgent, RemoteTargets } from "../clients/cluster-view.js";
import type { LocalTargets } from "./registry.js";

// A listing's fields are the claims: `tab:<target>` and `agent:<target>`.
const TAB_FIELD = claimOf("tab", "");

/** What this instance holds now, as the registry stores it: a claim of every tab and agent, each with its listing entry. */
export function localTargets(services: HubServices): LocalTargets {
  const owned = new Set<string>();
  const listing = new Map<string, string>();
  let tabs: TabEntry[] = [];
  try {
    tabs = services.clients.tabs({ scope: null });
  } catch {
    // Chrome is away (BROWSER_UNAVAILABLE): this instance has no tabs until it is back.
  }
  for (const tab of tabs) {
    const claim = claimOf("tab", tab.target);
    owned.add(claim);
    listing.set(claim, JSON.stringify(tab));
  }
  for (const { clientId, baseId, tabId, state, connectedAt } of services.agents.all()) {
    const claim = claimOf("agent", clientId);
    owned.add(claim);
    const agent: RemoteAgent = { clientId, baseId, tabId, state, connectedAt };
    listing.set(claim, JSON.stringify(agent));
  }
  return { owned, listing };
}

/** Reads another instance's listing back into its tabs and agents (fields that do not parse are skipped). */
export function parseListing(listing: ReadonlyMap<string, string>): RemoteTargets {
  const parsed: RemoteTargets = { tabs: [], agents: [] };
  for (const [field, json] of listing) {
    try {
      if (field.startsWith(TAB_FIELD)) parsed.tabs.push(JSON.parse(json) as TabEntry);
      else if (agentOfClaim(field) !== null) parsed.agents.push(JSON.parse(json) as RemoteAgent);
    } catch {
      // A field another version wrote; the listing goes on without it.
    }
  }
  return parsed;
}

/** This instance's tabs, then the other instances' ones the caller may see (of one client when asked). */
export function mergeTabs(local: TabEntry[], remote: RemoteTargets, asked: { caller: Caller; clientId: string | undefined }): TabEntry[] {
  const { caller, clientId } = asked;
  const seen = new Set(local.map((tab) => tab.target));
  const others = remote.tabs.filter(
    (tab) => !seen.has(tab.target) && (clientId === undefined || tab.clientId === clientId) && canSee(caller, tab.clientId),
  );
  return [...local, ...others];
}

/** This instance's clients with the other instances' tabs and agents added (an agent shows its readiest connection). */
export function mergeClients(local: ClientEntry[], remote: RemoteTargets, caller: Caller): ClientEntry[] {
  const byClient = new Map(local.map((entry) => [entry.clientId, { ...entry, tabs: [...entry.tabs] }]));
  const client = (clientId: string): ClientEntry => {
    let entry = byClient.get(clientId);
    if (!entry) byClient.set(clientId, (entry = { clientId, agent: null, tabs: [] }));
    return entry;
  };
  for (const tab of remote.tabs) {
    const entry = canSee(caller, tab.clientId) ? client(tab.clientId) : null;
    if (entry && !entry.tabs.includes(tab.target)) entry.tabs.push(tab.target);
  }
  for (const agent of remote.agents) {
    if (!canSee(caller, agent.baseId)) continue;
    const entry = client(agent.baseId);
    if (entry.agent === null || (entry.agent.state === "connected" && agent.state === "ready")) {
      entry.agent = { state: agent.state, connectedAt: agent.connectedAt };
    }
  }
  return [...byClient.values()];
}

function canSee(caller: Caller, clientId: string): boolean {
  return caller.scope === null || caller.scope.has(clientId);
}
