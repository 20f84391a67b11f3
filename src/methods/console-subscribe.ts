import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `console.subscribe`: streams the tab's console to this connection as console.message notifications. */
export const consoleSubscribe = defineMethod(
  "console.subscribe",
  { runs: "tab", needs: "read", subscription: "opens", reads: true },
  (params, call) => {
    const entry = call.services.clients.resolve(params.target, call.connection);
    const { console: stream, config } = call.services;
    if (stream.countOf(call.connection) >= config.maxSubscriptions) {
      throw new HubError(
        "OVERLOADED",
        `this connection holds ${config.maxSubscriptions} console subscriptions (MAX_SUBSCRIPTIONS); end one with console.unsubscribe first`,
        { limit: config.maxSubscriptions },
      );
    }
    const subscriptionId = call.services.console.subscribe(call.connection, {
      tabId: entry.tabId,
      target: entry.target,
      levels: params.levels,
      exceptions: params.exceptions,
      replay: params.replay,
    });
    return Promise.resolve({ subscriptionId });
  },
);
