import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `network.subscribe`: streams the tab's requests to this connection as network.requests notifications. */
export const networkSubscribe = defineMethod(
  "network.subscribe",
  { runs: "tab", needs: "read", subscription: "opens", reads: true },
  (params, call) => {
    const entry = call.services.clients.resolve(params.target, call.connection);
    const { networkStream, config } = call.services;
    if (networkStream.countOf(call.connection) >= config.maxSubscriptions) {
      throw new HubError(
        "OVERLOADED",
        `this connection holds ${config.maxSubscriptions} network subscriptions (MAX_SUBSCRIPTIONS); end one with network.unsubscribe first`,
        { limit: config.maxSubscriptions },
      );
    }
    const subscriptionId = networkStream.subscribe(call.connection, { tabId: entry.tabId, target: entry.target });
    return Promise.resolve({ subscriptionId });
  },
);
