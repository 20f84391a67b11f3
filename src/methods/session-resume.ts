import { defineMethod } from "../services.js";

/** `session.resume`: gives this connection the session of one that dropped, when the caller may have it. */
export const sessionResume = defineMethod("session.resume", { runs: "here", needs: "connection", reads: true }, (params, call) => {
  const { resume } = call.connection;
  // Agents, the HTTP API and MCP have no session to take one over with: they get nothing, whatever they name.
  if (!resume) return Promise.resolve({ resumed: false, session: "", reason: "unsupported" as const, lost: { calls: [] } });
  return Promise.resolve(resume(params.session, params.lastSeq, call.budget));
});
