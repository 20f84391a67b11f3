import { callerClient, defineMethod } from "../services.js";

/** `clients.configure`: makes a client persistent (its cookies, storage and tabs kept across restarts) or not. */
export const clientsConfigure = defineMethod("clients.configure", { runs: "here", needs: "act" }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "configure");
  const persistedBytes = await call.services.persistent.configure(clientId, params.persistent, call.budget);
  return { clientId, persistent: params.persistent, ...(persistedBytes === undefined ? {} : { persistedBytes }) };
});
