import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `network.unroute`: removes a route network.route made; its tabs stop intercepting when they have no other. */
export const networkUnroute = defineMethod("network.unroute", { runs: "here", needs: "script" }, async (params, call) => {
  const { routes, clients } = call.services;
  // Another client's route is as unknown as one that never was.
  const route = routes.get(params.routeId, (clientId) => clients.canSee(call.connection, clientId));
  if (!route) {
    const message = "names no route of a client this token reaches (a route with times ends by itself once used up)";
    throw new HubError("INVALID_PARAMS", `routeId ${message}`, { errors: [{ path: "/routeId", message }] });
  }
  routes.remove(route.id);
  return { removed: true };
});
