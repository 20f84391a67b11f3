import { v4 as uuidv4 } from "uuid";
import type { AgentRecord } from "../agents/agent-registry.js";
import { checkUrlAllowed } from "../runtime/url-policy.js";
import { defineMethod, readyAgent } from "../services.js";

/** `agent.run`: runs a task on the tab's agent (its `evaluate`), streaming its status frames as agent.status. */
export const agentRun = defineMethod("agent.run", { runs: "agent", needs: "agents" }, async (params, call) => {
  // The agent may load the URL: the same scheme policy as tabs.open and navigate.
  if (params.url !== undefined) checkUrlAllowed(params.url, call.services.config);
  const agent = readyAgent(call, params.target);
  const requestId = uuidv4();
  const onStatus = (record: AgentRecord, frame: Record<string, unknown>): void => {
    const about = frame.requestId ?? frame.evaluationId;
    if (record !== agent || (about !== undefined && about !== requestId)) return;
    const { status, progress, message } = frame;
    call.connection.notify("agent.status", { target: params.target, requestId, status, progress, message });
  };
  const { agents } = call.services;
  // An agent its operator paused takes no new task until resumed, within this call's budget.
  const held = agents.whenResumed(agent, call.budget);
  if (held) await held;
  agents.on("status", onStatus);
  agents.reportTask(agent, { requestId, input: params.input });
  let ok = false;
  try {
    const task = {
      requestId,
      evaluationId: requestId,
      name: typeof params.metadata?.name === "string" ? params.metadata.name : "agent.run",
      url: params.url,
      tool: params.tool,
      input: params.input,
      model: params.model,
      timeout: call.budget.remainingMs(),
      metadata: params.metadata ?? {},
    };
    const result = (await agent.link.calls.call("evaluate", task, call.budget)) as object;
    ok = true;
    return result;
  } finally {
    agents.off("status", onStatus);
    agents.reportTask(agent, { requestId, input: params.input, ok });
  }
});
