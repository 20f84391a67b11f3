import { expect } from "chai";
import WebSocket from "ws";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { MAX_REPORTED_ERRORS } from "../../src/rpc/params-validator.js";
import { UNREGISTERED_BYTES } from "../../src/transport/registration-guard.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { collect } from "../support/collect.js";
import { request } from "../support/http-request.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

const FULL = "frames-full-token-1";
const AGENT_KEY = "frames-agent-key-42";
const REGISTER_TIMEOUT_MS = 1_500;
// What "a few KB" means for the answer to a bad request, whatever its size.
const SMALL_ANSWER_BYTES = 4 * 1024;

/** A raw socket: every frame it receives as text, and how it closed. */
interface RawSocket {
  ws: WebSocket;
  frames: string[];
  closed: Promise<{ code: number; reason: string }>;
  next(): Promise<string>;
}

function openRaw(url: string, headers: Record<string, string> = {}): Promise<RawSocket> {
  const ws = new WebSocket(url, { headers });
  const frames: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  ws.on("message", (data) => {
    const text = (data as Buffer).toString("utf8");
    const waiter = waiting.shift();
    if (waiter) waiter(text);
    else frames.push(text);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const next = (): Promise<string> => {
    const seen = frames.shift();
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiting.push(resolve);
      void closed.then(() => reject(new Error("the socket closed before the next frame")));
    });
  };
  return new Promise((resolve, reject) => {
    ws.once("error", reject);
    ws.once("open", () => resolve({ ws, frames, closed, next }));
  });
}

/** A request for `evaluate` whose params break the schema once per extra property, padded to about `bytes`. */
function badParamsRequest(id: number, bytes: number): string {
  const extra: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const entry = `"p${i}":0`;
    extra.push(entry);
    length += entry.length + 1;
  }
  return `{"jsonrpc":"2.0","id":${id},"method":"evaluate","params":{"target":"local:x","expression":"1",${extra.join(",")}}}`;
}

function deepObject(levels: number): string {
  return '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
}

describe("frames: every frame is checked before it is handled, and nothing a peer sends can stop the hub (real hub)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let client: TabwireClient;

  before(async () => {
    hub = await startTestHub({ HUB_TOKEN: FULL, AUTH_KEY: AGENT_KEY, AGENT_REGISTER_TIMEOUT_MS: String(REGISTER_TIMEOUT_MS) });
    client = await connectClient(hub, { token: FULL });
  });
  after(async () => {
    await client?.close();
    await hub?.stop();
  });

  it("an agent's status frame nested 100,000 deep during agent.run is refused to the agent; the run and its caller go on", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${AGENT_KEY}`, clientId: "deepagent:t1" });
    expect(await agent.registration()).to.include({ status: "accepted" });
    agent.onRequest("evaluate", async (params) => {
      const { requestId } = params as { requestId: string };
      agent.sendText(`{"type":"status","requestId":${JSON.stringify(requestId)},"status":"running","message":${deepObject(100_000)}}`);
      await agent.frame((frame) => frame.type === "error", "the error frame");
      agent.status({ requestId, status: "running", message: "still here" });
      return { status: "success", output: "done" };
    });
    agent.ready();
    const statuses = collect(client, "agent.status", (all) => all.length >= 1);
    const result = await client.call("agent.run", { target: "deepagent:t1", input: "go", timeoutMs: 15_000 });
    expect(result).to.deep.equal({ status: "success", output: "done" });
    expect((await statuses).map((status) => status.message)).to.deep.equal(["still here"]);
    const refusal = agent.frames.find((frame) => frame.type === "error");
    expect(String(refusal?.message)).to.match(/^the status frame nests deeper than 66 levels at \/message(\/a)+; flatten it$/);
    expect(await agent.ping()).to.include({ type: "pong" });
    await agent.close();
  });

  it("a bad request's answer is a few KB whatever its size: at most 10 problems listed, errorCount tells how many there were", async () => {
    const rpc = await openRaw(`${hub.url}/rpc`, { authorization: `Bearer ${FULL}` });
    for (const [id, bytes] of [
      [1, 2 * 1024],
      [2, 200 * 1024],
    ] as const) {
      rpc.ws.send(badParamsRequest(id, bytes));
      const answer = await rpc.next();
      const { error } = JSON.parse(answer) as {
        error: { code: number; message: string; data: { errors: unknown[]; errorCount?: number } };
      };
      expect(error.code, `${bytes} bytes`).to.equal(-32602);
      expect(answer.length, `the answer to ${bytes} bytes of bad params`).to.be.below(SMALL_ANSWER_BYTES);
      if (id === 1) {
        expect(error.data.errors).to.have.length(MAX_REPORTED_ERRORS);
        expect(error.data.errorCount, "a small request gets every problem counted").to.be.above(MAX_REPORTED_ERRORS);
        expect(error.message).to.match(/\(and \d+ more\)$/);
      } else {
        expect(error.data.errors).to.have.length(1);
        expect(error.message).to.match(/\(only the first problem is looked for in params of more than 2000 values\)$/);
      }
    }
    rpc.ws.close();
  });

  it("an unregistered agent socket gets small answers, is closed 1009 past its 64 KiB budget and answers nothing more", async () => {
    const raw = await openRaw(`${hub.url}/agent`);
    expect(JSON.parse(await raw.next())).to.include({ type: "welcome" });
    raw.ws.send(badParamsRequest(1, 2 * 1024));
    const answer = await raw.next();
    expect(answer.length).to.be.below(SMALL_ANSWER_BYTES);
    expect(JSON.parse(answer)).to.have.nested.property("error.code", -32602);
    raw.ws.send(badParamsRequest(2, 200 * 1024));
    const closed = await raw.closed;
    expect(closed.code).to.equal(1009);
    expect(closed.reason).to.equal(`an agent may send ${UNREGISTERED_BYTES} bytes before it registers; send register first`);
    expect(raw.frames, "no answer to the frame past the budget").to.deep.equal([]);
  });

  it("a registered agent is not held to the unregistered budget", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${AGENT_KEY}`, clientId: "bigsender:t1" });
    expect(await agent.registration()).to.include({ status: "accepted" });
    for (let i = 0; i < 4; i++) agent.sendText(JSON.stringify({ type: "status", status: "running", message: "x".repeat(64 * 1024) }));
    expect(await agent.ping()).to.include({ type: "pong" });
    await agent.close();
  });

  it("an agent socket that does not register within AGENT_REGISTER_TIMEOUT_MS is closed 1008; a registered one stays", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${AGENT_KEY}`, clientId: "ontime:t1" });
    expect(await agent.registration()).to.include({ status: "accepted" });
    // Opened after the agent: once its deadline has passed, so has the agent's.
    const idle = await openRaw(`${hub.url}/agent`);
    const closed = await idle.closed;
    expect(closed).to.deep.equal({
      code: 1008,
      reason: `register within ${REGISTER_TIMEOUT_MS} ms of connecting (AGENT_REGISTER_TIMEOUT_MS)`,
    });
    expect(await agent.ping()).to.include({ type: "pong" });
    await agent.close();
  });

  it("an HTTP body nested too deep is 400 with where, and the next request is served", async () => {
    const body = `{"clientId":"local","tabId":"x","expression":"1","extra":${deepObject(100_000)}}`;
    const reply = await request(hub.port, "POST /page/execute", { token: FULL, rawBody: body });
    expect(reply.status).to.equal(400);
    expect(reply.body.error?.message).to.match(/^the body nests deeper than 66 levels at \/extra(\/a)+; flatten it$/);
    expect((await request(hub.port, "GET /status", { token: FULL })).status).to.equal(200);
  });
});
