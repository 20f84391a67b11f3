import { exportState } from "../clients/client-storage.js";
import { callerClient, defineMethod } from "../services.js";

/** `state.export`: a client's cookies and its open tabs' origins' localStorage, as Playwright's storage state. */
export const stateExport = defineMethod("state.export", { runs: "here", reads: true }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "export state");
  return exportState(call.services, clientId, call.budget);
});
