import { expect } from "chai";
import { AgentCalls } from "../../../src/agents/agent-calls.js";
import { Budget } from "../../../src/budget.js";
import { HubError } from "../../../src/errors.js";

interface SentRequest {
  jsonrpc: string;
  id: string;
  method: string;
  params: unknown;
}

/** Calls to one agent whose socket is a list: what the hub wrote to the agent. */
function agentCalls(prefix = "hub-1"): { calls: AgentCalls; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  return { calls: new AgentCalls((frame) => sent.push(frame as SentRequest), prefix), sent };
}

async function rejection(pending: Promise<unknown>): Promise<HubError> {
  try {
    await pending;
  } catch (error) {
    return error as HubError;
  }
  throw new Error("the call did not fail");
}

describe("AgentCalls (the hub's calls to one agent, correlated by json-rpc-2.0's client)", () => {
  const budgets: Budget[] = [];
  const budget = (ms = 10_000): Budget => {
    const made = new Budget(ms);
    budgets.push(made);
    return made;
  };
  afterEach(() => budgets.splice(0).forEach((made) => made.dispose()));

  it("gives each call a hub-made string id, and each answer reaches its own caller, in any order", async () => {
    const { calls, sent } = agentCalls("hub-abc-7");
    const first = calls.call("evaluate", { input: "a" }, budget());
    const second = calls.call("evaluate", { input: "b" }, budget());
    expect(sent).to.deep.equal([
      { jsonrpc: "2.0", id: "hub-abc-7-1", method: "evaluate", params: { input: "a" } },
      { jsonrpc: "2.0", id: "hub-abc-7-2", method: "evaluate", params: { input: "b" } },
    ]);
    // An answer carrying the id a caller used on its own connection (1) is no answer to the hub's calls.
    expect(calls.settle({ jsonrpc: "2.0", id: 1, result: "forged" })).to.equal(true);
    calls.settle({ jsonrpc: "2.0", id: "hub-abc-7-2", result: { output: "b" } });
    calls.settle({ jsonrpc: "2.0", id: "hub-abc-7-1", result: { output: "a" } });
    expect(await Promise.all([first, second])).to.deep.equal([{ output: "a" }, { output: "b" }]);
    expect(calls.size).to.equal(0);
  });

  it("two agents' calls never collide: the same counter gives ids of different prefixes", async () => {
    const one = agentCalls("hub-x-1");
    const two = agentCalls("hub-x-2");
    const a = one.calls.call("evaluate", {}, budget());
    const b = two.calls.call("evaluate", {}, budget());
    // The first agent answers with the id the second one was sent: the first call is not settled by it.
    one.calls.settle({ jsonrpc: "2.0", id: two.sent[0]?.id, result: "wrong" });
    two.calls.settle({ jsonrpc: "2.0", id: two.sent[0]?.id, result: "two" });
    one.calls.settle({ jsonrpc: "2.0", id: one.sent[0]?.id, result: "one" });
    expect(await Promise.all([a, b])).to.deep.equal(["one", "two"]);
  });

  it("a call whose budget ends fails with the budget's reason, and the agent's late answer is dropped", async () => {
    const { calls, sent } = agentCalls();
    const callerBudget = budget();
    const pending = calls.call("evaluate", {}, callerBudget);
    callerBudget.cancel(new HubError("CANCELLED", "cancelled by the caller"));
    const error = await rejection(pending);
    expect(error.errorName).to.equal("CANCELLED");
    expect(calls.size).to.equal(0);
    expect(calls.settle({ jsonrpc: "2.0", id: sent[0]?.id, result: "late" })).to.equal(true);
    const next = calls.call("evaluate", {}, budget());
    calls.settle({ jsonrpc: "2.0", id: sent[1]?.id, result: "fresh" });
    expect(await next).to.equal("fresh");
  });

  it("a call past its deadline fails with TIMEOUT", async () => {
    const { calls } = agentCalls();
    const error = await rejection(calls.call("evaluate", {}, budget(30)));
    expect(error.errorName).to.equal("TIMEOUT");
    expect(calls.size).to.equal(0);
  });

  it("keeps the agent's error object whole in AGENT_ERROR's data, even with code 0", async () => {
    const { calls, sent } = agentCalls();
    const pending = calls.call("evaluate", {}, budget());
    const agentError = { code: 0, message: "tool failed", data: { step: 3 } };
    calls.settle({ jsonrpc: "2.0", id: sent[0]?.id, error: agentError });
    const error = await rejection(pending);
    expect(error.errorName).to.equal("AGENT_ERROR");
    expect(error.message).to.equal("the agent answered an error: tool failed");
    expect(error.data).to.deep.equal(agentError);
  });

  it("closing fails every waiting call with the given error, and every later call at once", async () => {
    const { calls, sent } = agentCalls();
    const waiting = [calls.call("evaluate", {}, budget()), calls.call("agent.call", {}, budget())];
    expect(calls.size).to.equal(2);
    const gone = new HubError("AGENT_UNAVAILABLE", "a:b disconnected during the call; wait for it to reconnect and retry");
    calls.close(gone);
    for (const pending of waiting) expect(await rejection(pending)).to.equal(gone);
    expect(calls.size).to.equal(0);
    expect(await rejection(calls.call("evaluate", {}, budget()))).to.equal(gone);
    expect(sent).to.have.length(2);
  });

  it("leaves frames that are not answers to the rest of the socket", () => {
    const { calls } = agentCalls();
    expect(calls.settle({ jsonrpc: "2.0", id: 5, method: "evaluate", params: {} })).to.equal(false);
    expect(calls.settle({ jsonrpc: "2.0", id: 5 })).to.equal(false);
  });
});
