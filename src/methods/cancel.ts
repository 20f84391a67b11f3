import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `cancel`: cancels an in-flight request of the same connection, which then answers CANCELLED. */
export const cancel = defineMethod("cancel", { runs: "here", needs: "connection", unlimited: true, reads: true }, (params, call) => {
  const reason = new HubError("CANCELLED", `request ${JSON.stringify(params.id)} was cancelled by the caller`);
  return Promise.resolve({ cancelled: call.connection.inflight.cancel(params.id, reason) });
});
