import { v4 as uuidv4 } from "uuid";
import type { AgentRecord, AgentRegistry } from "../agents/agent-registry.js";
import { ErrorCode } from "../errors.js";
import { log } from "../log.js";
import type { HubServices } from "../services.js";
import type { RouteContext } from "./api.js";
import { HttpError } from "./http-io.js";

const DEFAULT_WAIT_MS = 30_000;
const MAX_WAIT_MS = 600_000;

/**
 * POST /v1/responses: picks a ready agent, opens a tab for its client at `url`, waits (by event) for that tab's agent
 * to be ready, runs the task there, and closes the tab again whatever happened (unless `keep_tab` is true).
 */
export async function runResponses(services: HubServices, context: RouteContext): Promise<unknown[]> {
  const { body, grant, call } = context;
  const input = body.input;
  if (typeof input !== "string" && !Array.isArray(input)) {
    throw new HttpError(400, {
      code: ErrorCode.INVALID_PARAMS,
      message: "input is required: a string or a list of {role, content} messages",
    });
  }
  const waitMs =
    typeof body.wait_timeout === "number" && body.wait_timeout > 0 ? Math.min(body.wait_timeout, MAX_WAIT_MS) : DEFAULT_WAIT_MS;
  const agent = services.agents.all().find((a) => a.state === "ready" && services.clients.canSee(grant, a.baseId));
  if (!agent)
    throw new HttpError(409, { code: ErrorCode.AGENT_UNAVAILABLE, message: "no ready agent: connect a DevTools agent to the hub first" });
  const url = typeof body.url === "string" ? body.url : "about:blank";
  const opened = await call("tabs.open", { clientId: agent.baseId, url });
  const { target } = opened;
  try {
    await readyAgentOn(services.agents, target, waitMs);
    const result = await call("agent.run", { target, input, ...(body.model === undefined ? {} : { model: body.model }) });
    const text = outputText(result);
    const message = { type: "output_text", text, annotations: [] };
    return [
      {
        id: `msg_${uuidv4()}`,
        type: "message",
        role: "assistant",
        content: [message],
        metadata: { clientId: agent.baseId, tabId: opened.tabId },
      },
    ];
  } finally {
    if (body.keep_tab !== true)
      await call("tabs.close", { target }).catch((error: Error) =>
        log.warn("cannot close the /v1/responses tab", { target, error: error.message }),
      );
  }
}

/** Resolves when the agent of `target` is ready (now or by its `ready` event), or fails with 504 after `waitMs`. */
function readyAgentOn(agents: AgentRegistry, target: string, waitMs: number): Promise<void> {
  if (agents.get(target)?.state === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = (agent: AgentRecord): void => {
      if (agent.clientId !== target) return;
      clearTimeout(timer);
      agents.off("ready", onReady);
      resolve();
    };
    const timer = setTimeout(() => {
      agents.off("ready", onReady);
      reject(
        new HttpError(504, {
          code: ErrorCode.TIMEOUT,
          message: `no agent became ready on the new tab ${target} within ${waitMs} ms (wait_timeout)`,
        }),
      );
    }, waitMs);
    agents.on("ready", onReady);
  });
}

function outputText(result: unknown): string {
  const output = (result as { output?: unknown } | null)?.output;
  if (typeof output === "string") return output;
  const fields = output as { response?: unknown; text?: unknown } | null | undefined;
  if (typeof fields?.response === "string") return fields.response;
  if (typeof fields?.text === "string") return fields.text;
  return JSON.stringify(output ?? result);
}
