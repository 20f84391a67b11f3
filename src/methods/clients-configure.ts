import type { ClientPolicy } from "../egress-rules.js";
import { checkedPolicy, checkedUpstream } from "../egress/policy-check.js";
import { HubError } from "../errors.js";
import { callerClient, defineMethod, type HubCall } from "../services.js";

/** `clients.configure`: makes a client persistent (its cookies, storage and tabs kept across restarts) or not, and narrows its egress. */
export const clientsConfigure = defineMethod("clients.configure", { runs: "client", needs: "act" }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "configure");
  const { persistent, egress } = call.services;
  if (params.persistent === undefined && params.policy === undefined && params.upstreamProxy === undefined) {
    throw new HubError("INVALID_PARAMS", "give persistent, policy or upstreamProxy (or several)", {
      errors: [{ path: "/persistent", message: "is required when neither policy nor upstreamProxy is given" }],
    });
  }
  if (params.policy !== undefined || params.upstreamProxy !== undefined) {
    const policy = params.policy === undefined ? undefined : checkedPolicy(params.policy as ClientPolicy, "/policy");
    const upstreamProxy = params.upstreamProxy === undefined ? undefined : checkedUpstream(params.upstreamProxy, "/upstreamProxy");
    await readyForPolicy(call, clientId, policy !== undefined);
    egress.configure(clientId, { ...(policy ? { policy } : {}), ...(upstreamProxy ? { upstreamProxy } : {}) });
    // A persistent client's saved state carries its egress: it is saved now, so a restart never brings it back without.
    if (params.persistent === undefined) await persistent.saveNow(clientId, call.budget);
  }
  const persistedBytes = params.persistent === undefined ? undefined : await persistent.configure(clientId, params.persistent, call.budget);
  const policies = egress.policiesOf(clientId).length;
  return {
    clientId,
    persistent: params.persistent ?? persistent.isPersistent(clientId),
    ...(persistedBytes === undefined ? {} : { persistedBytes }),
    ...(policies > 0 ? { policies } : {}),
    ...(egress.hasUpstream(clientId) ? { upstreamProxy: true } : {}),
  };
});

/**
 * A policy is enforced by the proxy a context is made behind: a client whose context is open without one has it
 * made again when it has no tab, and is refused when it has (its pages would go on without the policy), here or on
 * another instance of a cluster. A policy the hub's Chrome cannot be held to (WebRTC around the proxy, with CDP_URL)
 * is refused before it is taken.
 */
async function readyForPolicy(call: HubCall, clientId: string, policed: boolean): Promise<void> {
  const { clients, egress, config } = call.services;
  if (clientId === config.defaultClientId) {
    throw new HubError(
      "INVALID_PARAMS",
      `client ${clientId} is DEFAULT_CLIENT_ID, whose tabs live in Chrome's default context, which cannot have a proxy; give the policy to another clientId`,
    );
  }
  const why = policed ? await call.budget.race(egress.whyUnenforceable()) : null;
  if (why !== null) throw new HubError("INTERNAL_ERROR", `this hub cannot enforce an egress policy: ${why}`);
  if (clients.contexts.has(clientId) && !egress.hasProxy(clientId)) {
    if (clients.tabCount(clientId) === 0) clients.contexts.end(clientId);
    if (clients.contexts.has(clientId)) {
      throw new HubError(
        "INVALID_PARAMS",
        `client ${clientId} already has tabs (or an agent) in a browser context without an egress proxy: set the policy before its first tab, or close its tabs first`,
      );
    }
  }
  // In a cluster this instance becomes the one that holds the client's policy: its context is made only here.
  await call.budget.race(egress.takeHome(clientId));
}
