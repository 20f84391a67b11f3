import { defineMethod, readyAgent } from "../services.js";

/** `agent.call`: calls another method of the tab's agent (execute_tool, configure_llm...) and returns its result unchanged. */
export const agentCall = defineMethod("agent.call", { runs: "agent", needs: "agents" }, async (params, call) => {
  const agent = readyAgent(call, params.target);
  // A paused agent is sent nothing until resumed, within this call's budget.
  const held = call.services.agents.whenResumed(agent, call.budget);
  if (held) await held;
  return (await agent.link.calls.call(params.method, params.params, call.budget)) as object;
});
