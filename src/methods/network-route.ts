import type { RouteAction } from "../clients/client-routes.js";
import { HubError } from "../errors.js";
import { globMatcher } from "../runtime/url-matcher.js";
import { acquireTab, callerClient, defineMethod } from "../services.js";
import type { ValidatedParams } from "../protocol/types.js";

/** `network.route`: blocks, fulfills or alters the requests to matching URLs, of one tab or of every tab of a client. */
export const networkRoute = defineMethod("network.route", { runs: "client", needs: "script" }, async (params, call) => {
  if (params.target !== undefined && params.clientId !== undefined) {
    const message = "give target (one tab) or clientId (every tab of the client), not both";
    throw new HubError("INVALID_PARAMS", message, { errors: [{ path: "/clientId", message }] });
  }
  const matches = globMatcher(params.url, { method: "network.route", path: "/url" });
  const action = actionOf(params);
  const { routes, clients, pool } = call.services;
  const remaining = params.times ?? null;
  if (params.target !== undefined) {
    const { entry, tab } = await acquireTab(call, params.target);
    const routeId = await routes.add(
      { clientId: entry.clientId, tabId: entry.tabId, url: params.url, matches, action, remaining },
      [tab],
      call.budget,
    );
    return { routeId };
  }
  const clientId = callerClient(call, params.clientId, "route requests");
  const tabs = await Promise.all(clients.tabs(call.connection, clientId).map((tab) => pool.acquire(tab.tabId, call.budget)));
  return { routeId: await routes.add({ clientId, tabId: null, url: params.url, matches, action, remaining }, tabs, call.budget) };
});

function actionOf(params: ValidatedParams<"network.route">): RouteAction {
  if (params.action === "block") return { kind: "block" };
  const headers = params.headers ?? {};
  if (params.action === "continue") return { kind: "continue", headers };
  const body = params.body ?? "";
  return {
    kind: "fulfill",
    status: params.status ?? 200,
    headers,
    body: params.bodyEncoding === "base64" ? body : Buffer.from(body, "utf8").toString("base64"),
  };
}
