import http from "node:http";
import { expect } from "chai";
import WebSocket from "ws";
import { TabwireError } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { eventually } from "../support/eventually.js";
import { request } from "../support/http-request.js";
import { samplesOf } from "../support/metrics-text.js";
import { openTab } from "../support/tabs.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

const FULL = "doors-full-token-1";
const TOKEN_A = "doors-tenant-a-token";
const TOKEN_B = "doors-tenant-b-token";
const AGENT_KEY_B = "doors-agent-key-b";

/** An upgrade from a chosen loopback source address (127.0.0.x are all this machine): its socket, or the refusal's status. */
function upgradeFrom(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<WebSocket | number> {
  const ws = new WebSocket(url, { localAddress, headers });
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (_request, response) => {
      ws.terminate();
      resolve(response.statusCode ?? 0);
    });
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

/** A raw HTTP request with a Host header of our choosing (fetch will not send one). */
function withHost(port: number, methodAndPath: string, sent: { host: string; token?: string }): Promise<{ status: number; body: string }> {
  const [method, path] = methodAndPath.split(" ");
  const { host, token } = sent;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const outgoing = http.request({ host: "127.0.0.1", port, method, path, headers }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** An upgrade with a Host header of our choosing: 101 or the refusal's status. */
function upgradeWithHost(url: string, host: string): Promise<number> {
  return upgradeFrom(url, "127.0.0.1", { host }).then((result) => {
    if (typeof result === "number") return result;
    result.close();
    return 101;
  });
}

const closed = (ws: WebSocket): Promise<void> =>
  new Promise((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve() : ws.once("close", () => resolve())));

describe("doors: connection caps, HTTP limits, subscription caps, the Host check and scoped hub-wide routes (real hub)", function () {
  this.timeout(30_000);

  describe("on a hub with tokens", () => {
    let hub: Hub;
    before(async () => {
      hub = await startTestHub({
        HUB_TOKENS: `${FULL},${TOKEN_A}:tenantA,${TOKEN_B}:tenantB`,
        AGENT_KEYS: `${AGENT_KEY_B}:tenantB`,
        MAX_CONNECTIONS: "5",
        MAX_CONNECTIONS_PER_IP: "3",
        MAX_SUBSCRIPTIONS: "2",
      });
    });
    after(async () => {
      await hub?.stop();
    });

    it("refuses the upgrade past MAX_CONNECTIONS_PER_IP and MAX_CONNECTIONS with 503, counted, and lets one in again once a slot is free", async () => {
      const url = `${hub.url}/rpc?token=${FULL}`;
      const open: WebSocket[] = [];
      for (let i = 0; i < 3; i++) open.push((await upgradeFrom(url, "127.0.0.1")) as WebSocket);
      expect(await upgradeFrom(url, "127.0.0.1"), "a fourth socket from one address").to.equal(503);
      for (let i = 0; i < 2; i++) open.push((await upgradeFrom(url, "127.0.0.2")) as WebSocket);
      expect(await upgradeFrom(url, "127.0.0.3"), "a sixth socket in all, from a third address").to.equal(503);
      const first = open.shift() as WebSocket;
      first.close();
      await closed(first);
      await eventually(
        async () => {
          const again = await upgradeFrom(url, "127.0.0.1");
          if (typeof again === "number") return false;
          open.push(again);
          return true;
        },
        5_000,
        "a socket from the first address once one of its own closed",
      );
      const metrics = await request(hub.port, "GET /metrics", { token: FULL });
      const refused = Object.fromEntries(
        samplesOf(metrics.text, "tabwire_connections_refused_total").map((s) => [s.labels.reason, s.value]),
      );
      expect(refused.max_connections_per_ip).to.be.at.least(1);
      expect(refused.max_connections).to.be.at.least(1);
      await Promise.all(open.map(async (ws) => (ws.close(), closed(ws))));
    });

    it("a connection holds at most MAX_SUBSCRIPTIONS console subscriptions; unsubscribing frees a slot", async () => {
      const client = await connectClient(hub, { token: TOKEN_A });
      const { target } = await openTab(client, "about:blank");
      const first = await client.call("console.subscribe", { target });
      await client.call("console.subscribe", { target });
      const error = (await client.call("console.subscribe", { target }).catch((e: unknown) => e)) as TabwireError;
      expect(error).to.be.instanceOf(TabwireError);
      expect(error.code).to.equal(-32011);
      expect(error.message).to.equal(
        "this connection holds 2 console subscriptions (MAX_SUBSCRIPTIONS); end one with console.unsubscribe first",
      );
      await client.call("console.unsubscribe", { subscriptionId: first.subscriptionId });
      expect((await client.call("console.subscribe", { target })).subscriptionId).to.be.a("string");
      await client.close();
    });

    it("a scoped token's /status counts only its clients' agents, and its /metrics is 403; a full token sees both", async () => {
      const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${AGENT_KEY_B}`, clientId: "tenantB:doors" });
      expect(await agent.registration()).to.include({ status: "accepted" });
      try {
        const scoped = await request(hub.port, "GET /status", { token: TOKEN_A });
        expect((scoped.body.server as { agents: number }).agents).to.equal(0);
        expect(JSON.stringify(scoped.body)).to.not.include("tenantB");
        expect(((await request(hub.port, "GET /status", { token: FULL })).body.server as { agents: number }).agents).to.equal(1);
        const metrics = await request(hub.port, "GET /metrics", { token: TOKEN_A });
        expect(metrics.status).to.equal(403);
        expect(metrics.body.error?.message).to.match(/needs a full token/);
        expect((await request(hub.port, "GET /metrics", { token: FULL })).status).to.equal(200);
      } finally {
        await agent.close();
      }
    });

    it("answers any Host when tokens guard it", async () => {
      expect((await withHost(hub.port, "GET /status", { host: "evil.example", token: FULL })).status).to.equal(200);
    });
  });

  describe("HTTP limits", () => {
    let hub: Hub;
    before(async () => {
      hub = await startTestHub({
        HUB_TOKENS: `${FULL},${TOKEN_A}:tenantA,${TOKEN_B}:tenantB`,
        AUTH_KEY: AGENT_KEY_B,
        MAX_INFLIGHT: "1",
        RATE_LIMIT_PER_SEC: "3",
      });
    });
    after(async () => {
      await hub?.stop();
    });

    it("holds HTTP requests to MAX_INFLIGHT and RATE_LIMIT_PER_SEC per token: 503 OVERLOADED with retryAfterMs, other tokens unaffected", async () => {
      const client = await connectClient(hub, { token: FULL });
      const tabA = await openTab(client, "about:blank", { clientId: "tenantA" });
      const tabB = await openTab(client, "about:blank", { clientId: "tenantB" });
      await client.close();
      const execute = (token: string, tab: { clientId: string; tabId: string }, expression: string): ReturnType<typeof request> =>
        request(hub.port, "POST /page/execute", { token, body: { clientId: tab.clientId, tabId: tab.tabId, expression } });
      const slow = execute(TOKEN_A, tabA, "new Promise((resolve) => setTimeout(() => resolve('slow'), 500))");
      const [second, other] = await Promise.all([execute(TOKEN_A, tabA, "1"), execute(TOKEN_B, tabB, "2")]);
      expect(second.status).to.equal(503);
      expect(second.body.error).to.deep.include({ code: -32011 });
      expect(second.body.error?.message).to.match(/MAX_INFLIGHT/);
      expect(other.status, "another token's request").to.equal(200);
      expect((await slow).status).to.equal(200);
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof request>> | undefined;
      for (let i = 0; i < 5; i++) {
        last = await request(hub.port, "GET /clients", { token: TOKEN_B });
        statuses.push(last.status);
      }
      expect(statuses).to.include(503);
      const limited = (await request(hub.port, "GET /clients", { token: TOKEN_B })).body.error as
        { code: number; message: string; data?: { retryAfterMs: number } } | undefined;
      expect(limited?.message ?? "").to.match(/RATE_LIMIT_PER_SEC/);
      expect(limited?.data?.retryAfterMs).to.be.above(0);
    });
  });

  describe("on a hub with no token (loopback only)", () => {
    let hub: Hub;
    before(async () => {
      hub = await startTestHub({ ALLOWED_HOSTS: "hub.test" });
    });
    after(async () => {
      await hub?.stop();
    });

    it("refuses a Host that is not this machine's (DNS rebinding) on HTTP, /rpc and /agent with 403 naming ALLOWED_HOSTS", async () => {
      const refused = await withHost(hub.port, "GET /status", { host: "evil.example" });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.match(/Host evil\.example is not this hub's: .*ALLOWED_HOSTS/);
      expect(await upgradeWithHost(`${hub.url}/rpc`, "evil.example:80")).to.equal(403);
      expect(await upgradeWithHost(`${hub.url}/agent`, "evil.example")).to.equal(403);
      expect((await withHost(hub.port, "GET /health", { host: "evil.example" })).status, "/health answers anyone").to.equal(200);
    });

    it("answers loopback names, HOST and ALLOWED_HOSTS", async () => {
      for (const host of [
        `localhost:${hub.port}`,
        `127.0.0.1:${hub.port}`,
        `[::1]:${hub.port}`,
        "app.localhost",
        "hub.test",
        `hub.test:${hub.port}`,
      ]) {
        expect((await withHost(hub.port, "GET /status", { host })).status, host).to.equal(200);
      }
      expect(await upgradeWithHost(`${hub.url}/rpc`, `localhost:${hub.port}`)).to.equal(101);
    });
  });
});
