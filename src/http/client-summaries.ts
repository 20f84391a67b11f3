import type { HubServices } from "../services.js";
import type { Grant } from "../transport/auth.js";

/** One tab of a client as the eval-server's /clients listed it. */
export interface TabSummary {
  tabId: string;
  compositeClientId: string;
  connected: boolean;
  ready: boolean;
}

/** One client as the eval-server's /clients listed it. */
export interface ClientSummary {
  id: string;
  name: string;
  tabCount: number;
  tabs: TabSummary[];
}

/** The clients the caller may see with their tabs: Chrome's page tabs and the agents' own (`base:default`) alike. */
export function clientSummaries(services: HubServices, grant: Grant): ClientSummary[] {
  const byClient = new Map<string, Map<string, TabSummary>>();
  const tabsOf = (clientId: string): Map<string, TabSummary> => {
    let tabs = byClient.get(clientId);
    if (!tabs) byClient.set(clientId, (tabs = new Map()));
    return tabs;
  };
  // Cluster (Redis): the other instances' tabs and agents as last read.
  const remote = services.cluster?.remote() ?? { tabs: [], agents: [] };
  for (const tab of [...services.clients.tabs(grant), ...remote.tabs.filter((tab) => services.clients.canSee(grant, tab.clientId))]) {
    tabsOf(tab.clientId).set(tab.target, {
      tabId: tab.tabId,
      compositeClientId: tab.target,
      connected: tab.agent !== null,
      ready: tab.agent === "ready",
    });
  }
  for (const agent of [...services.agents.all(), ...remote.agents]) {
    if (!services.clients.canSee(grant, agent.baseId)) continue;
    tabsOf(agent.baseId).set(agent.clientId, {
      tabId: agent.tabId,
      compositeClientId: agent.clientId,
      connected: true,
      ready: agent.state === "ready",
    });
  }
  return [...byClient].map(([id, tabs]) => ({ id, name: id, tabCount: tabs.size, tabs: [...tabs.values()] }));
}
