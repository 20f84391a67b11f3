import { IndexedDbTooLarge } from "../clients/client-indexed-db.js";
import { exportState } from "../clients/client-storage.js";
import { HubError } from "../errors.js";
import { callerClient, defineMethod } from "../services.js";

/** `state.export`: a client's cookies and its open tabs' origins' localStorage (and IndexedDB if asked), as Playwright's storage state. */
export const stateExport = defineMethod("state.export", { runs: "client", needs: "read", reads: true }, async (params, call) => {
  const clientId = callerClient(call, params.clientId, "export state");
  const maxBytes = call.services.config.maxResultBytes;
  const indexedDb = params.indexedDB ? { maxBytes } : undefined;
  return exportState(call.services, { clientId, indexedDb }, call.budget).catch((error: unknown) => {
    if (!(error instanceof IndexedDbTooLarge)) throw error;
    const message = `an origin's IndexedDB takes more than MAX_RESULT_BYTES (${maxBytes}); export without indexedDB, or clear some of it`;
    throw new HubError("OVERLOADED", message, { maxBytes });
  });
});
