import { createJSONRPCErrorResponse, createJSONRPCRequest, JSONRPCClient, type JSONRPCError, type JSONRPCResponse } from "json-rpc-2.0";
import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import { isTracing, traceChild } from "../tracing.js";

/** The agent's error object, kept whole for AGENT_ERROR's data. */
interface AgentErrorObject {
  code?: unknown;
  message?: unknown;
  data?: unknown;
}

/**
 * The hub's calls to one agent, correlated by json-rpc-2.0's client: requests with hub-made string ids (two callers
 * both using id 1 never collide), each bounded by its caller's budget, all failing with AGENT_UNAVAILABLE the moment
 * the agent goes; an answer that comes after its call ended is dropped.
 */
export class AgentCalls {
  #client: JSONRPCClient;
  #prefix: string;
  #next = 0;
  #waiting = 0;
  #gone: HubError | null = null;

  constructor(send: (frame: object) => void, prefix: string) {
    this.#client = new JSONRPCClient((payload: object) => send(payload));
    this.#prefix = prefix;
  }

  /** Sends a request to the agent and resolves with its result, or rejects with AGENT_ERROR, the budget's reason, or AGENT_UNAVAILABLE. */
  call(method: string, params: object, budget: Budget): Promise<unknown> {
    // Traced, a call to the agent is a child span of the hub call it serves (the agent's wire is left as it is).
    if (isTracing()) return traceChild(`agent ${method}`, { "tabwire.agent.method": method }, () => this.#call(method, params, budget));
    return this.#call(method, params, budget);
  }

  #call(method: string, params: object, budget: Budget): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    if (budget.reason) return Promise.reject(budget.reason);
    const id = `${this.#prefix}-${++this.#next}`;
    // The client writes the request before requestAdvanced returns, so an answer always finds its call.
    const answered = this.#client.requestAdvanced(createJSONRPCRequest(id, method, params));
    // The budget's end settles the call with an answer of the hub's own; the agent's, if it comes, is then dropped.
    const ended = createJSONRPCErrorResponse(id, 0, "the caller's budget ended");
    const unwatch = budget.onEnd(() => this.#client.receive(ended));
    this.#waiting++;
    return Promise.resolve(answered).then((response) => {
      this.#waiting--;
      unwatch();
      if (response === ended) throw budget.reason as Error;
      if (response.error === undefined || response.error === null) return response.result as unknown;
      if (this.#gone && this.#isClosing(response.error)) throw this.#gone;
      throw agentError(response.error as AgentErrorObject);
    });
  }

  /**
   * Takes a response frame: the answer to one of the hub's calls, or a late one (its caller gave up) that is dropped;
   * false when the frame is not a response at all.
   */
  settle(frame: Record<string, unknown>): boolean {
    if (frame.method !== undefined || !("result" in frame || "error" in frame)) return false;
    // An id the client is not waiting for (a late answer, or a number the hub never sent) is dropped by the client.
    if (typeof frame.id === "string") this.#client.receive(frame as unknown as JSONRPCResponse);
    return true;
  }

  /** How many calls wait for the agent. */
  get size(): number {
    return this.#waiting;
  }

  /** Fails every pending call, and every later one, with `error` (the agent disconnected). */
  close(error: HubError): void {
    this.#gone = error;
    this.#client.rejectAllPendingRequests(error.message);
  }

  // The answer rejectAllPendingRequests gives each call (code 0 and the message it was given), not an agent's error.
  #isClosing(error: JSONRPCError): boolean {
    return error.code === 0 && error.message === this.#gone?.message;
  }
}

function agentError(error: AgentErrorObject): HubError {
  const message = typeof error.message === "string" ? error.message : "the agent answered an error";
  return new HubError("AGENT_ERROR", `the agent answered an error: ${message}`, error);
}
