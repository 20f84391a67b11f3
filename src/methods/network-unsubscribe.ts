import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `network.unsubscribe`: ends one of this connection's network subscriptions. */
export const networkUnsubscribe = defineMethod(
  "network.unsubscribe",
  { runs: "subscription", needs: "connection", subscription: "closes", reads: true },
  (params, call) => {
    if (!call.services.networkStream.unsubscribe(call.connection, params.subscriptionId)) {
      throw new HubError("INVALID_PARAMS", `no network subscription ${params.subscriptionId} on this connection`, {
        errors: [{ path: "/subscriptionId", message: "is not a network subscription of this connection" }],
      });
    }
    return Promise.resolve({ unsubscribed: true });
  },
);
