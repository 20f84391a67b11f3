import { checkedOrigin, importState } from "../clients/client-storage.js";
import { callerClient, defineMethod } from "../services.js";

/** `state.import`: a Playwright storage state (cookies, localStorage per origin) into a client's browser context. */
export const stateImport = defineMethod("state.import", { runs: "client", needs: "act" }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "import state");
  const origins = params.state.origins.map((entry, index) => ({ ...entry, origin: checkedOrigin(entry.origin, index) }));
  const { cookies } = params.state;
  await importState(call.services, { clientId, state: { cookies, origins } }, call.budget);
  return { cookies: cookies.length, origins: origins.length };
});
