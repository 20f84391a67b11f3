import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { TestAgent } from "../fixtures/wire-agent.js";
import { EVENT_BUDGET_MS, REPLY_SLACK_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { request, upgradeFrom } from "../support/http-request.js";
import { RpcError, rpcFailure, TestRpcClient } from "../support/rpc-client.js";

const OVERLOADED = -32011;
const CANCELLED = -32010;
// What the hub adds to DRAIN_TIMEOUT_MS before its process is gone (docs/operations.md): cancelling, closing, Chrome.
const STOP_AFTER_DRAIN_MS = 1_000;
const CHILD_TEST_TIMEOUT_MS = 120_000;

/** A page's origin whose /hold request the test answers when it chooses: a call that runs exactly as long as the test wants. */
interface HoldServer {
  origin: string;
  /** Resolves when the page has asked for /hold (its call is running in the hub). */
  arrived: Promise<void>;
  release(text: string): void;
  close(): Promise<void>;
}

async function startHoldServer(): Promise<HoldServer> {
  let arrive: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, response) => {
    if (req.url !== "/hold") return void response.writeHead(200, { "content-type": "text/html" }).end("<title>drain</title>");
    held.push(response);
    arrive();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    release: (text) => held.splice(0).forEach((response) => response.writeHead(200, { "content-type": "text/plain" }).end(text)),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The params of the first notification `method` the client gets, within the event budget. */
function notification(client: TestRpcClient, method: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${method} within ${EVENT_BUDGET_MS} ms`)), EVENT_BUDGET_MS);
    client.onNotification((name, params) => {
      if (name !== method) return;
      clearTimeout(timer);
      resolve(params);
    });
    client.ws.once("close", () => {
      clearTimeout(timer);
      reject(new Error(`the connection closed before ${method} came`));
    });
  });
}

/** Opens a tab on the hold server's page and starts a call that waits there (then for `after`, a JS expression). */
async function heldCall(client: TestRpcClient, hold: HoldServer, after = "text"): Promise<{ running: Promise<{ value?: unknown }> }> {
  const { target } = await client.call<{ target: string }>("tabs.open", { url: `${hold.origin}/` });
  const running = client.call<{ value?: unknown }>("evaluate", {
    target,
    expression: `fetch("/hold").then((r) => r.text()).then((text) => ${after})`,
    timeoutMs: EVENT_BUDGET_MS,
  });
  running.catch(() => undefined);
  await hold.arrived;
  return { running };
}

describe("drain on SIGTERM and SIGINT (a hub process of its own)", function () {
  this.timeout(CHILD_TEST_TIMEOUT_MS);
  let hub: ChildHub | null = null;
  let hold: HoldServer | null = null;
  const clients: { close(): Promise<void> }[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
    await hub?.stop();
    await hold?.close();
    hub = null;
    hold = null;
  });

  it("SIGTERM: the call in flight gets its result, new /rpc calls OVERLOADED with draining, /health and new connections 503, every client and agent told; then exit 0", async () => {
    hold = await startHoldServer();
    hub = await startChildHub({ DRAIN_TIMEOUT_MS: String(EVENT_BUDGET_MS) });
    const [caller, idle] = [await TestRpcClient.connect(hub.url), await TestRpcClient.connect(hub.url)];
    const agent = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: "drain-agent" });
    clients.push(caller, idle, agent);
    expect((await agent.registration()).status).to.equal("accepted");
    const { running } = await heldCall(caller, hold);
    const told = [notification(caller, "hub.draining"), notification(idle, "hub.draining")];
    const agentTold = agent.frame((frame) => frame.method === "hub.draining", "hub.draining");
    const signalledAt = Date.now();
    hub.kill("SIGTERM");

    const [note, idleNote] = await Promise.all(told);
    expect(idleNote).to.deep.equal(note);
    expect(note!.deadline)
      .to.be.a("number")
      .within(signalledAt + 1, signalledAt + EVENT_BUDGET_MS + REPLY_SLACK_MS);
    expect(note!.timeoutMs).to.be.a("number").within(0, EVENT_BUDGET_MS);
    expect((await agentTold).params).to.deep.equal(note);

    const refused = await rpcFailure(caller.call("tabs.list"));
    expect(refused.code, refused.message).to.equal(OVERLOADED);
    expect(refused.message).to.match(/draining/);
    expect(refused.data).to.deep.include({ draining: true, deadline: note!.deadline });
    expect((refused.data as { retryAfterMs: number }).retryAfterMs).to.be.above(0);
    expect(await agent.call("tabs.list"), "an agent's own calls serve its running tasks: not refused").to.have.property("tabs");
    const health = await request(hub.port, "GET /health");
    expect(health.status).to.equal(503);
    expect(health.body).to.include({ ok: false, draining: true });
    const status = await request(hub.port, "GET /status");
    expect(status.status).to.equal(503);
    expect(status.body.error).to.deep.include({ code: OVERLOADED });
    for (const door of ["/rpc", "/agent"]) {
      const upgrade = await upgradeFrom(`${hub.url}${door}`, "127.0.0.1");
      expect(upgrade.status, door).to.equal(503);
      expect(upgrade.body.error?.data, door).to.deep.include({ draining: true });
    }

    hold.release("finished after the signal");
    expect((await running).value).to.equal("finished after the signal");
    expect(await hub.exited).to.deep.equal({ code: 0, signal: null });
  });

  it("a call that never ends: answered CANCELLED at DRAIN_TIMEOUT_MS, and the process exits within DRAIN_TIMEOUT_MS + 1 s", async () => {
    const drainTimeoutMs = 2_000;
    hold = await startHoldServer();
    hub = await startChildHub({ DRAIN_TIMEOUT_MS: String(drainTimeoutMs) });
    const caller = await TestRpcClient.connect(hub.url);
    clients.push(caller);
    const { running } = await heldCall(caller, hold, "new Promise(() => {})");
    hold.release("and now it never ends");
    const signalledAt = Date.now();
    hub.kill("SIGTERM");

    const cancelled = await rpcFailure(running);
    const answeredAt = Date.now();
    expect(cancelled.code, cancelled.message).to.equal(CANCELLED);
    expect(cancelled.message).to.match(/DRAIN_TIMEOUT_MS/);
    expect(answeredAt - signalledAt, "the call ran until the deadline").to.be.at.least(drainTimeoutMs);
    expect(await hub.exited).to.deep.equal({ code: 0, signal: null });
    // The one rule about time here is the drain's own promise, measured across two processes: hence the slack.
    expect(Date.now() - signalledAt).to.be.below(drainTimeoutMs + STOP_AFTER_DRAIN_MS + REPLY_SLACK_MS);
  });

  it("a second signal ends the drain at once: the call is cancelled and the hub exits long before DRAIN_TIMEOUT_MS", async () => {
    hold = await startHoldServer();
    hub = await startChildHub({ DRAIN_TIMEOUT_MS: "600000" });
    const caller = await TestRpcClient.connect(hub.url);
    clients.push(caller);
    const { running } = await heldCall(caller, hold);
    const told = notification(caller, "hub.draining");
    hub.kill("SIGTERM");
    expect((await told).timeoutMs).to.be.above(EVENT_BUDGET_MS);
    hub.kill("SIGINT");

    const cancelled = await rpcFailure(running).catch((error: Error) => error);
    // Cancelled with an answer, or the socket closed first: either way it never got a result.
    if (cancelled instanceof RpcError) expect(cancelled.code, cancelled.message).to.equal(CANCELLED);
    else expect(cancelled.message).to.equal("socket closed");
    expect(await hub.exited).to.deep.equal({ code: 0, signal: null });
  });
});
