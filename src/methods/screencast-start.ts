import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `screencast.start`: streams a live view of the tab to this connection as screencast.frame notifications. */
export const screencastStart = defineMethod(
  "screencast.start",
  { runs: "tab", needs: "read", subscription: "opens", reads: true },
  async (params, call) => {
    const entry = call.services.clients.resolve(params.target, call.connection);
    const { screencasts, config } = call.services;
    if (screencasts.countOf(call.connection) >= config.maxSubscriptions) {
      throw new HubError(
        "OVERLOADED",
        `this connection holds ${config.maxSubscriptions} live views (MAX_SUBSCRIPTIONS); end one with screencast.stop first`,
        { limit: config.maxSubscriptions },
      );
    }
    const { maxWidth, maxHeight, maxFps, quality } = params;
    const viewer = { tabId: entry.tabId, target: entry.target, maxWidth, maxHeight, maxFps, quality };
    const subscribing = screencasts.subscribe(call.connection, viewer);
    try {
      return { subscriptionId: await call.budget.race(subscribing) };
    } catch (error) {
      // Past the budget (or cancelled) the caller never learns the view's id: it is ended once it has started.
      subscribing.then((id) => screencasts.unsubscribe(call.connection, id)).catch(() => {});
      throw error;
    }
  },
);
