import type { ClientManager } from "./clients/client-manager.js";
import type { EgressService } from "./egress/egress-service.js";
import type { EventTopics } from "./events/event-topics.js";
import type { NetworkLog } from "./events/network-log.js";
import { audit } from "./log.js";

/**
 * Makes the egress proxies' refusals visible: `blockedBy` on the failed request in network.list, `policy.blocked` to
 * the topic `policy`, and a line in audit.log (the host and port only: a URL's path and query may carry secrets).
 */
export function watchEgress(parts: { egress: EgressService; network: NetworkLog; clients: ClientManager; eventTopics: EventTopics }): void {
  const { egress, network, clients, eventTopics } = parts;
  network.explainFailuresWith((tabId, url) => {
    const refusal = egress.refusalFor(clients.ownerOf(tabId), url);
    return refusal ? { policy: refusal.policy, rule: refusal.rule } : undefined;
  });
  egress.on("blocked", ({ clientId, url, host, port, policy, rule }) => {
    audit("policy.blocked", { clientId, host, port, policy, rule });
    eventTopics.publish("policy", clientId, { method: "policy.blocked", params: { clientId, url, host, policy, rule } });
  });
}
