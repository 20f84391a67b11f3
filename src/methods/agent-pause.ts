import { audit } from "../log.js";
import { connectedAgent, defineMethod } from "../services.js";

/** `agent.pause`: holds the tab's agent (its calls to the hub, and the hub's to it) until agent.resume. */
export const agentPause = defineMethod("agent.pause", { runs: "agent", needs: "agents" }, (params, call) => {
  const agent = connectedAgent(call, params.target);
  if (call.services.agents.pause(agent, params.reason))
    audit("agent.paused", { target: params.target, reason: params.reason, by: call.connection.id, peer: call.connection.peer });
  return Promise.resolve({ paused: true as const });
});
