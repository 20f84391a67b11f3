import { callerClient, defineMethod } from "../services.js";

/** `downloads.list`: a client's downloads, running, finished and cancelled. */
export const downloadsList = defineMethod("downloads.list", { runs: "client", needs: "read", reads: true }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "list downloads");
  return { downloads: call.services.downloads.list(clientId).map((download) => ({ ...download })) };
});
