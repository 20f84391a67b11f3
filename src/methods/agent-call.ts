import { defineMethod, readyAgent } from "../services.js";

interface AgentCallParams {
  target: string;
  method: string;
  params: Record<string, unknown>;
}

/** `agent.call`: calls another method of the tab's agent (execute_tool, configure_llm...) and returns its result unchanged. */
export const agentCall = defineMethod<AgentCallParams>({
  name: "agent.call",
  async run(params, call) {
    const agent = readyAgent(call, params.target);
    return (await agent.link.calls.call(params.method, params.params, call.budget)) as object;
  },
});
