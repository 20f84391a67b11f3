import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `screencast.stop`: ends one of this connection's live views. */
export const screencastStop = defineMethod(
  "screencast.stop",
  { runs: "subscription", needs: "connection", subscription: "closes", reads: true },
  (params, call) => {
    if (!call.services.screencasts.unsubscribe(call.connection, params.subscriptionId)) {
      throw new HubError("INVALID_PARAMS", `no live view ${params.subscriptionId} on this connection`, {
        errors: [{ path: "/subscriptionId", message: "is not a live view of this connection" }],
      });
    }
    return Promise.resolve({ stopped: true as const });
  },
);
