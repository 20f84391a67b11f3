import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `console.unsubscribe`: ends one of this connection's console subscriptions. */
export const consoleUnsubscribe = defineMethod(
  "console.unsubscribe",
  { runs: "subscription", needs: "connection", subscription: "closes", reads: true },
  (params, call) => {
    if (!call.services.console.unsubscribe(call.connection, params.subscriptionId)) {
      throw new HubError("INVALID_PARAMS", `no console subscription ${params.subscriptionId} on this connection`, {
        errors: [{ path: "/subscriptionId", message: "is not a subscription of this connection" }],
      });
    }
    return Promise.resolve({ unsubscribed: true });
  },
);
