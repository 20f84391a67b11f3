import { audit } from "../log.js";
import { connectedAgent, defineMethod } from "../services.js";

/** `agent.resume`: gives a paused agent its tab back; the calls held for it go on. */
export const agentResume = defineMethod("agent.resume", { runs: "agent", needs: "agents" }, (params, call) => {
  const agent = connectedAgent(call, params.target);
  if (call.services.agents.resume(agent))
    audit("agent.resumed", { target: params.target, by: call.connection.id, peer: call.connection.peer });
  return Promise.resolve({ paused: false as const });
});
