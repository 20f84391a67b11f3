import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";

interface PendingCall {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  dispose: () => void;
}

/** The agent's error object, kept whole for AGENT_ERROR's data. */
interface AgentErrorObject {
  code?: unknown;
  message?: unknown;
  data?: unknown;
}

/**
 * The hub's calls to one agent: JSON-RPC requests with hub-made string ids (two callers both using id 1 never
 * collide), each bounded by its caller's budget, all failing with AGENT_UNAVAILABLE the moment the agent goes.
 */
export class AgentCalls {
  #send: (frame: object) => void;
  // Made at the first call: most agents are never called by the hub.
  #pending: Map<string, PendingCall> | null = null;
  #prefix: string;
  #next = 0;
  #gone: HubError | null = null;

  constructor(send: (frame: object) => void, prefix: string) {
    this.#send = send;
    this.#prefix = prefix;
  }

  /** Sends a request to the agent and resolves with its result, or rejects with AGENT_ERROR, the budget's reason, or AGENT_UNAVAILABLE. */
  call(method: string, params: object, budget: Budget): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    if (budget.reason) return Promise.reject(budget.reason);
    const id = `${this.#prefix}-${++this.#next}`;
    return new Promise((resolve, reject) => {
      const pending: PendingCall = { resolve, reject, dispose: () => {} };
      (this.#pending ??= new Map()).set(id, pending);
      pending.dispose = budget.onEnd(() => this.#settle(id, () => reject(budget.reason as Error)));
      this.#send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /**
   * Takes a response frame: the answer to one of the hub's calls, or a late one (its caller gave up) that is dropped;
   * false when the frame is not a response at all.
   */
  settle(frame: Record<string, unknown>): boolean {
    if (frame.method !== undefined || !("result" in frame || "error" in frame)) return false;
    const pending = typeof frame.id === "string" ? this.#pending?.get(frame.id) : undefined;
    if (!pending) return true;
    this.#settle(frame.id as string, () => {
      if (frame.error === undefined || frame.error === null) pending.resolve(frame.result);
      else pending.reject(agentError(frame.error as AgentErrorObject));
    });
    return true;
  }

  /** Whether any call waits for the agent. */
  get size(): number {
    return this.#pending?.size ?? 0;
  }

  /** Fails every pending call, and every later one, with `error` (the agent disconnected). */
  close(error: HubError): void {
    this.#gone = error;
    for (const [id, pending] of [...(this.#pending ?? [])]) this.#settle(id, () => pending.reject(error));
  }

  #settle(id: string, finish: () => void): void {
    const pending = this.#pending?.get(id);
    if (!pending) return;
    this.#pending?.delete(id);
    pending.dispose();
    finish();
  }
}

function agentError(error: AgentErrorObject): HubError {
  const message = typeof error.message === "string" ? error.message : "the agent answered an error";
  return new HubError("AGENT_ERROR", `the agent answered an error: ${message}`, error);
}
