import { expect } from "chai";
import WebSocket from "ws";
import type { Hub } from "../../src/hub.js";
import { requestFrom, upgradeFrom, type SourcedReply } from "../support/http-request.js";
import { startTestHub } from "../support/test-hub.js";

const FULL = "limits-full-token-1";
const AGENT_KEY = "limits-agent-key-1";
const WRONG = "not-this-hubs-token";
// Small limits, so a test reaches them in a few requests (the defaults are 20 and 300 a minute).
const PER_SOURCE = 5;
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "limits", version: "1" } },
};

type Attempt = (source: string, token: string) => Promise<SourcedReply>;

/** Every door that reads a token, as one attempt with it from a chosen source address. */
function doorsOf(hub: Hub): [door: string, attempt: Attempt][] {
  const { port, url } = hub;
  const mcpHeaders = { accept: "application/json, text/event-stream" };
  return [
    ["GET /status", (source, token) => requestFrom(port, source, { methodAndPath: "GET /status", token })],
    ["the /rpc upgrade", (source, token) => upgradeFrom(`${url}/rpc?token=${token}`, source)],
    ["the /cdp upgrade", (source, token) => upgradeFrom(`${url}/cdp`, source, { authorization: `Bearer ${token}` })],
    [
      "POST /mcp",
      (source, token) => requestFrom(port, source, { methodAndPath: "POST /mcp", token, body: INITIALIZE, headers: mcpHeaders }),
    ],
    ["GET /cdp/json/version", (source, token) => requestFrom(port, source, { methodAndPath: "GET /cdp/json/version", token })],
    ["the dashboard's sign-in", (source, token) => requestFrom(port, source, { methodAndPath: "POST /ui/session", body: { token } })],
  ];
}

/** A 429 that says when to retry: in the Retry-After header (seconds), in `data.retryAfterMs` and in the message. */
function expectLimited(reply: SourcedReply, scope: RegExp): void {
  expect(reply.status).to.equal(429);
  expect(Number(reply.retryAfter)).to.be.within(1, 60);
  expect(reply.body.error?.data?.retryAfterMs).to.be.above(0);
  expect(reply.body.error?.message)
    .to.match(scope)
    .and.match(/retry in \d+ s/);
}

/** An agent socket from a chosen source, welcomed; register answers with the registration_ack (and the close code on a rejection). */
async function agentFrom(
  url: string,
  localAddress: string,
): Promise<{ register(secretKey: string): Promise<{ status: unknown; reason: unknown; code?: number }> }> {
  const ws = new WebSocket(url, { localAddress });
  const frames: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (data: Buffer) => {
    frames.push(JSON.parse(data.toString("utf8")) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
  const frameOf = async (type: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = frames.find((frame) => frame.type === type);
      if (found) return found;
      await Promise.race([
        new Promise<void>((resolve) => waiters.push(resolve)),
        closed.then(() => Promise.reject(new Error(`closed before ${type}`))),
      ]);
    }
  };
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
  await frameOf("welcome");
  return {
    async register(secretKey) {
      ws.send(JSON.stringify({ type: "register", clientId: "limits:tab", capabilities: {}, secretKey }));
      const ack = await frameOf("registration_ack");
      const code = ack.status === "rejected" ? await closed : undefined;
      if (code === undefined) ws.close();
      return { status: ack.status, reason: ack.reason, ...(code === undefined ? {} : { code }) };
    },
  };
}

describe("failed authentications: one limit at every door, per source and for the whole hub (real hub)", function () {
  this.timeout(60_000);

  describe("per source", () => {
    let hub: Hub;
    before(async () => {
      hub = await startTestHub({
        HUB_TOKEN: FULL,
        AUTH_KEY: AGENT_KEY,
        AUTH_FAILURES_PER_MIN: String(PER_SOURCE),
        AUTH_FAILURES_GLOBAL_PER_MIN: "1000",
      });
    });
    after(async () => {
      await hub?.stop();
    });

    for (const [index, door] of [
      "GET /status",
      "the /rpc upgrade",
      "the /cdp upgrade",
      "POST /mcp",
      "GET /cdp/json/version",
      "the dashboard's sign-in",
    ].entries()) {
      it(`${door}: a stranger's wrong tokens are 401 up to the limit, then 429 even with the right token; the right token from another address gets in`, async () => {
        const attempt = (doorsOf(hub).find(([name]) => name === door) as [string, Attempt])[1];
        const stranger = `127.0.0.${20 + index}`;
        const statuses: number[] = [];
        for (let i = 0; i < PER_SOURCE; i++) statuses.push((await attempt(stranger, WRONG)).status);
        expect(statuses).to.deep.equal(new Array<number>(PER_SOURCE).fill(401));
        expectLimited(
          await attempt(stranger, WRONG),
          /too many failed authentications from your address \(AUTH_FAILURES_PER_MIN: 5 a minute\)/,
        );
        expect((await attempt(stranger, FULL)).status, "the right token from the limited address").to.equal(429);
        expect((await attempt("127.0.0.2", FULL)).status, "the right token from another address").to.be.oneOf([101, 200]);
      });
    }

    it("agent register: wrong secretKeys are rejected up to the limit, then rejected with when to retry (1008); the right key from another address registers", async () => {
      const stranger = "127.0.0.30";
      // Sockets opened before any failure: each register is then checked on its own socket.
      const sockets = await Promise.all(Array.from({ length: PER_SOURCE + 2 }, () => agentFrom(`${hub.url}/agent`, stranger)));
      const answers = [];
      for (const [i, socket] of sockets.entries()) answers.push(await socket.register(i === PER_SOURCE + 1 ? AGENT_KEY : WRONG));
      for (const answer of answers.slice(0, PER_SOURCE))
        expect(answer).to.deep.equal({ status: "rejected", reason: "the secretKey is wrong", code: 1008 });
      for (const answer of answers.slice(PER_SOURCE)) {
        expect(answer).to.include({ status: "rejected", code: 1008 });
        expect(answer.reason).to.match(/too many failed authentications from your address .*; retry in \d+ s/);
      }
      expectLimited(await upgradeFrom(`${hub.url}/agent`, stranger), /from your address/);
      const other = await agentFrom(`${hub.url}/agent`, "127.0.0.31");
      expect(await other.register(AGENT_KEY)).to.deep.equal({ status: "accepted", reason: undefined });
    });

    it("the limit is one for every door: wrong tokens at /status refuse the same address's /rpc, /agent, /mcp and sign-in", async () => {
      const stranger = "127.0.0.40";
      for (let i = 0; i < PER_SOURCE; i++)
        expect((await requestFrom(hub.port, stranger, { methodAndPath: "GET /status", token: WRONG })).status).to.equal(401);
      for (const [door, attempt] of doorsOf(hub)) expect((await attempt(stranger, FULL)).status, door).to.equal(429);
      expect((await upgradeFrom(`${hub.url}/agent?token=${AGENT_KEY}`, stranger)).status, "/agent with its key").to.equal(429);
      expect((await upgradeFrom(`${hub.url}/agent`, stranger)).status, "/agent without a key").to.equal(429);
      expect((await requestFrom(hub.port, stranger, { methodAndPath: "GET /health" })).status, "/health needs no token").to.equal(200);
    });
  });

  describe("for the whole hub", () => {
    let hub: Hub;
    before(async () => {
      hub = await startTestHub({
        HUB_TOKEN: FULL,
        AUTH_KEY: AGENT_KEY,
        AUTH_FAILURES_PER_MIN: String(PER_SOURCE),
        AUTH_FAILURES_GLOBAL_PER_MIN: "12",
      });
    });
    after(async () => {
      await hub?.stop();
    });

    it("wrong tokens from several addresses, each under its own limit, reach the ceiling: then new addresses get 429, one that signed in before still gets in", async () => {
      const known = "127.0.0.50";
      expect((await requestFrom(hub.port, known, { methodAndPath: "GET /status", token: FULL })).status).to.equal(200);
      for (const source of ["127.0.0.51", "127.0.0.52", "127.0.0.53", "127.0.0.54"])
        for (let i = 0; i < 3; i++)
          expect((await requestFrom(hub.port, source, { methodAndPath: "GET /status", token: WRONG })).status).to.equal(401);
      const fresh = "127.0.0.55";
      expectLimited(
        await requestFrom(hub.port, fresh, { methodAndPath: "GET /status", token: WRONG }),
        /too many failed authentications at this hub from all addresses \(AUTH_FAILURES_GLOBAL_PER_MIN: 12 a minute\)/,
      );
      expect((await upgradeFrom(`${hub.url}/rpc?token=${WRONG}`, "127.0.0.56")).status, "another new address's upgrade").to.equal(429);
      expect(
        (await requestFrom(hub.port, known, { methodAndPath: "GET /status", token: FULL })).status,
        "the address that signed in",
      ).to.equal(200);
      expect((await upgradeFrom(`${hub.url}/rpc?token=${FULL}`, known)).status).to.equal(101);
    });
  });
});
