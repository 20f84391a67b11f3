import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";
import { ErrorCode } from "../../src/errors.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const TOKEN_A = "pause-token-alpha";
const TOKEN_B = "pause-token-beta";
const KEY = "pause-agent-key";
const KEY_B = "pause-agent-key-beta";

/** Resolves once the file holds a line that matches, polling for at most `deadlineMs` (winston writes files asynchronously). */
async function lineIn(
  file: string,
  match: (line: Record<string, unknown>) => boolean,
  deadlineMs = 5_000,
): Promise<Record<string, unknown>> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    const line = text
      .split("\n")
      .filter(Boolean)
      .map((each) => JSON.parse(each) as Record<string, unknown>)
      .find(match);
    if (line) return line;
    if (Date.now() > until) throw new Error(`no matching line in ${path.basename(file)} within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("agent.pause and agent.resume: a person takes over a tab from its agent (real hub, wire agent)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;
  let tab: OpenedTab;
  let agent: TestAgent;
  const alphaActivity: Record<string, unknown>[] = [];
  const betaActivity: Record<string, unknown>[] = [];
  let onActivity: () => void = () => {};

  /** The next agent.activity of `kind` alpha's subscription hears (or one it heard already). */
  const activity = (kind: string, from = 0): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no agent.activity ${kind} within 10 s`)), 10_000);
      onActivity = () => {
        const found = alphaActivity.slice(from).find((each) => each.kind === kind);
        if (!found) return;
        clearTimeout(timer);
        resolve(found);
      };
      onActivity();
    });

  before(async () => {
    hub = await startTestHub({ HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`, AUTH_KEY: KEY, AGENT_KEYS: `${KEY_B}:beta` });
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
    tab = await openTab(alpha, "about:blank");
    alpha.onNotification((method, params) => {
      if (method !== "agent.activity") return;
      alphaActivity.push(params);
      onActivity();
    });
    beta.onNotification((method, params) => {
      if (method === "agent.activity") betaActivity.push(params);
    });
    await alpha.call("events.subscribe", { topics: ["agents"] });
    await beta.call("events.subscribe", { topics: ["agents"] });
    agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY}`, clientId: tab.target });
    expect(await agent.registration()).to.include({ status: "accepted" });
    agent.onRequest("evaluate", (params) => {
      const { requestId } = params as { requestId: string };
      agent.status({ requestId, status: "running", progress: 0.5, message: "halfway" });
      return { status: "success", output: { response: "done" }, executionTime: 5, toolCalls: [], metadata: {} };
    });
    agent.ready();
  });
  after(async () => {
    await agent?.close();
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
  });

  it("a run shows as a task, its status and its end on the agents topic", async () => {
    const from = alphaActivity.length;
    const result = await alpha.call("agent.run", { target: tab.target, input: "find the price" });
    expect(result).to.include({ status: "success" });
    expect(await activity("task", from)).to.include({ target: tab.target, input: "find the price" });
    expect(await activity("status", from)).to.include({ status: "running", message: "halfway" });
    expect(await activity("done", from)).to.include({ ok: true });
  });

  it("paused: the agent's own calls and the runs sent to it wait (TIMEOUT within their budget), and go on at resume", async () => {
    const from = alphaActivity.length;
    expect(await alpha.call("agent.pause", { target: tab.target, reason: "a person takes over" })).to.deep.equal({ paused: true });
    expect(await activity("paused", from)).to.include({ target: tab.target, message: "a person takes over" });
    const listed = await alpha.call<{ tabs: { target: string; agentPaused?: boolean }[] }>("tabs.list");
    expect(listed.tabs.find((each) => each.target === tab.target)?.agentPaused).to.equal(true);
    // The agent's call is held past its budget: it never ran on the page.
    const held = (await agent
      .call("evaluate", { target: tab.target, expression: "window.__ranWhilePaused = true", timeoutMs: 300 })
      .catch((error: unknown) => error)) as { code?: number };
    expect(held.code).to.equal(ErrorCode.TIMEOUT);
    const runs = agent.requests("evaluate").length;
    expect((await rpcFailure(alpha.call("agent.run", { target: tab.target, input: "go on", timeoutMs: 300 }))).code).to.equal(
      ErrorCode.TIMEOUT,
    );
    expect(agent.requests("evaluate").length, "no task reached the paused agent").to.equal(runs);
    // A call made while paused goes on when the agent is resumed.
    const waiting = agent.call("evaluate", { target: tab.target, expression: "typeof window.__ranWhilePaused" });
    expect(await alpha.call("agent.resume", { target: tab.target })).to.deep.equal({ paused: false });
    expect(await waiting).to.deep.include({ type: "string", value: "undefined" });
    expect(await activity("resumed", from)).to.include({ target: tab.target });
    const after = await alpha.call<{ tabs: { target: string; agentPaused?: boolean }[] }>("tabs.list");
    expect(after.tabs.find((each) => each.target === tab.target)).to.not.have.property("agentPaused");
  });

  it("pause and resume are written to logs/audit.log with the target and the reason", async () => {
    const file = path.join(hub.services.config.logDir, "audit.log");
    const paused = await lineIn(file, (line) => line.message === "agent.paused" && line.target === tab.target);
    expect(paused.reason).to.equal("a person takes over");
    await lineIn(file, (line) => line.message === "agent.resumed" && line.target === tab.target);
  });

  it("a paused agent replaced by a new registration of its tab lets what waited for it go on at once (AGENT_UNAVAILABLE), and the new one is not paused", async () => {
    const other = await openTab(alpha, "about:blank");
    const leaving = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY}`, clientId: other.target });
    expect(await leaving.registration()).to.include({ status: "accepted" });
    leaving.ready();
    const until = Date.now() + 10_000;
    const isReady = async (): Promise<boolean> =>
      (await alpha.call<{ tabs: { target: string; agent: string | null }[] }>("tabs.list")).tabs.some(
        (each) => each.target === other.target && each.agent === "ready",
      );
    while (!(await isReady()) && Date.now() < until) await alpha.call("ping");
    expect(await isReady()).to.equal(true);
    expect(await alpha.call("agent.pause", { target: other.target })).to.deep.equal({ paused: true });
    const run = rpcFailure(alpha.call("agent.run", { target: other.target, input: "never", timeoutMs: 60_000 }));
    const began = Date.now();
    // The tab's agent registers again (DevTools reloaded): the old connection goes, and the new one is not paused.
    const replacement = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY}`, clientId: other.target });
    try {
      expect(await replacement.registration()).to.include({ status: "accepted" });
      expect((await run).code).to.equal(ErrorCode.AGENT_UNAVAILABLE);
      expect(Date.now() - began, "answered when the agent left, not at the 60 s budget").to.be.below(30_000);
      expect(leaving.requests("evaluate")).to.deep.equal([]);
      const listed = await alpha.call<{ tabs: { target: string; agentPaused?: boolean }[] }>("tabs.list");
      expect(listed.tabs.find((each) => each.target === other.target)).to.not.have.property("agentPaused");
    } finally {
      await replacement.close();
    }
  });

  it("another client's token, an agent with another key and a stranger cannot pause it, nor hear of its activity", async () => {
    expect((await rpcFailure(beta.call("agent.pause", { target: tab.target }))).code).to.equal(ErrorCode.TARGET_NOT_FOUND);
    expect((await rpcFailure(beta.call("agent.resume", { target: tab.target }))).code).to.equal(ErrorCode.TARGET_NOT_FOUND);
    const other = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY_B}`, clientId: "beta:other" });
    try {
      expect(await other.registration()).to.include({ status: "accepted" });
      const error = (await other.call("agent.pause", { target: tab.target }).catch((e: unknown) => e)) as { code?: number };
      expect(error.code).to.equal(ErrorCode.TARGET_NOT_FOUND);
    } finally {
      await other.close();
    }
    expect(await connect(hub).catch((e: { status?: number }) => e.status)).to.equal(401);
    const listed = await alpha.call<{ tabs: { target: string; agentPaused?: boolean }[] }>("tabs.list");
    expect(listed.tabs.find((each) => each.target === tab.target)).to.not.have.property("agentPaused");
    await beta.call("ping");
    expect(betaActivity, "beta heard nothing of alpha's agent").to.deep.equal([]);
  });
});
