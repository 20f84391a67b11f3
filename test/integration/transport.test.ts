import net from "node:net";
import { expect } from "chai";
import WebSocket from "ws";
import type { Hub } from "../../src/hub.js";
import { collect } from "../support/collect.js";
import { startFixtureServer } from "../support/fixture-server.js";
import { RpcError, TestRpcClient } from "../support/rpc-client.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "full-access-token-1";
const SECOND = "second-token-22222";
const SCOPED = "scoped-to-alpha-333";

async function refusal(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { status?: number }).status;
  }
  throw new Error("the upgrade was accepted but should have been refused");
}

const PING = 0x9;

/** The opcodes of the frames in `bytes`, as a server sends them (unmasked). */
function serverOpcodes(bytes: Buffer): number[] {
  const opcodes: number[] = [];
  for (let at = 0; at + 2 <= bytes.length;) {
    const [first = 0, second = 0] = bytes.subarray(at, at + 2);
    const short = second & 0x7f;
    const [lengthBytes, length] =
      short === 126 ? [2, bytes.readUInt16BE(at + 2)] : short === 127 ? [8, Number(bytes.readBigUInt64BE(at + 2))] : [0, short];
    opcodes.push(first & 0x0f);
    at += 2 + lengthBytes + length;
  }
  return opcodes;
}

describe("transport: auth, origins, limits, heartbeat, shutdown (real hub)", function () {
  this.timeout(30_000);
  let hub: Hub;

  before(async () => {
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${SECOND},${SCOPED}:alpha`,
      AUTH_KEY: "agent-key-transport",
      ALLOWED_ORIGINS: "https://allowed.example",
      MAX_PAYLOAD: "65536",
      HEARTBEAT_INTERVAL_MS: "300",
    });
  });
  after(async () => hub.stop());

  it("two orchestrators with different tokens both work", async () => {
    const one = await connect(hub, { token: FULL });
    const two = await connect(hub, { token: SECOND });
    expect(await one.call("ping")).to.have.property("pong", true);
    expect(await two.call("ping")).to.have.property("pong", true);
    await Promise.all([one.close(), two.close()]);
  });

  it("the token also works as ?token=", async () => {
    const client = await TestRpcClient.connect(hub.url, { path: `/rpc?token=${FULL}` });
    expect(await client.call("ping")).to.have.property("pong", true);
    await client.close();
  });

  it("no token, a wrong one and one of the wrong length get 401 before any frame", async () => {
    expect(await refusal(connect(hub))).to.equal(401);
    expect(await refusal(connect(hub, { token: "full-access-token-2" }))).to.equal(401);
    expect(await refusal(connect(hub, { token: "x" }))).to.equal(401);
  });

  it("a foreign Origin gets 403; an allowed one and none at all are let in", async () => {
    expect(await refusal(connect(hub, { token: FULL, origin: "https://evil.example" }))).to.equal(403);
    const allowed = await connect(hub, { token: FULL, origin: "https://allowed.example" });
    await allowed.close();
  });

  it("an unknown path gets 404", async () => {
    expect(await refusal(connect(hub, { token: FULL, path: "/nope" }))).to.equal(404);
  });

  it("a scoped token sees only its clients' tabs; others are TARGET_NOT_FOUND, as if missing", async () => {
    const full = await connect(hub, { token: FULL });
    const scoped = await connect(hub, { token: SCOPED });
    const local = await full.call<{ target: string }>("tabs.open", {});
    const mine = await scoped.call<{ target: string; clientId: string }>("tabs.open", {});
    try {
      expect(mine.clientId).to.equal("alpha");
      const { tabs } = await scoped.call<{ tabs: { target: string }[] }>("tabs.list");
      expect(tabs.map((t) => t.target)).to.deep.equal([mine.target]);
      const hidden = await scoped.call("evaluate", { target: local.target, expression: "1" }).catch((e: RpcError) => e);
      const missing = await scoped.call("evaluate", { target: "local:NOSUCHTAB", expression: "1" }).catch((e: RpcError) => e);
      expect(hidden).to.be.instanceOf(RpcError);
      expect((hidden as RpcError).code).to.equal(-32002);
      expect((hidden as RpcError).message.replace(local.target, "X")).to.equal(
        (missing as RpcError).message.replace("local:NOSUCHTAB", "X"),
      );
      expect((await scoped.call("tabs.open", { clientId: "local" }).catch((e: RpcError) => e)) as RpcError).to.have.property(
        "code",
        -32007,
      );
      expect((await full.call("evaluate", { target: mine.target, expression: "2" })) as object).to.deep.equal({ type: "number", value: 2 });
      await scoped.call("events.subscribe", { topics: ["tabs"] });
      const seen = collect<{ clientId: string }>(scoped, "tab.opened", (all) => all.length >= 1);
      const other = await full.call<{ target: string }>("tabs.open", {});
      const own = await scoped.call<{ target: string }>("tabs.open", {});
      expect((await seen).map((t) => t.clientId)).to.deep.equal(["alpha"]);
      await full.call("tabs.close", { target: other.target });
      await full.call("tabs.close", { target: own.target });
    } finally {
      await full.call("tabs.close", { target: local.target });
      await full.call("tabs.close", { target: mine.target });
      await Promise.all([full.close(), scoped.close()]);
    }
  });

  it("a frame over MAX_PAYLOAD closes the connection with 1009", async () => {
    const client = await connect(hub, { token: FULL });
    const closed = new Promise<number>((resolve) => client.ws.once("close", resolve));
    client.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "ping", id: 1, params: { pad: "x".repeat(70_000) } }));
    expect(await closed).to.equal(1009);
  });

  // Within two intervals as the hub counts them: one beat pings, the next one drops the peer that did not answer. A
  // peer dropped later would have seen a second ping; the wall clock would add a slow machine's lag.
  it("a peer that never answers pings is dropped within two heartbeat intervals", async () => {
    const socket = net.connect(hub.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.write(
      [
        "GET /rpc HTTP/1.1",
        `Host: 127.0.0.1:${hub.port}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        `Authorization: Bearer ${FULL}`,
        "",
        "",
      ].join("\r\n"),
    );
    await new Promise((resolve) => socket.once("close", resolve));
    const received = Buffer.concat(chunks);
    const headEnd = received.indexOf("\r\n\r\n");
    expect(received.subarray(0, headEnd).toString("latin1")).to.match(/^HTTP\/1\.1 101 /);
    expect(serverOpcodes(received.subarray(headEnd + 4)), "frames the hub sent before dropping the peer").to.deep.equal([PING]);
  });

  it("a connection that closes cancels its in-flight calls and stops their scripts", async () => {
    const fixtures = await startFixtureServer();
    const client = await connect(hub, { token: FULL });
    const observer = await connect(hub, { token: FULL });
    const { target } = await client.call<{ target: string }>("tabs.open", {});
    try {
      const expression = `fetch("${fixtures.origin}/mark?name=gone", { mode: "no-cors", keepalive: true }); while (true) {}`;
      void client.call("evaluate", { target, expression, timeoutMs: 20_000 }).catch(() => undefined);
      await fixtures.waitForMark("gone");
      await client.close();
      expect(await observer.call("evaluate", { target, expression: "1 + 1", timeoutMs: 10_000 })).to.deep.equal({
        type: "number",
        value: 2,
      });
    } finally {
      await observer.call("tabs.close", { target });
      await observer.close();
      await fixtures.close();
    }
  });
});

describe("graceful shutdown", function () {
  this.timeout(30_000);

  it("stop() closes sockets with 1001, answers in-flight calls and stops Chrome", async () => {
    const hub = await startTestHub();
    const client = await connect(hub);
    const pid = hub.services.browser.pid;
    expect(pid).to.be.a("number");
    const closed = new Promise<number>((resolve) => client.ws.once("close", resolve));
    await hub.stop();
    expect(await closed).to.equal(1001);
    expect(() => process.kill(pid as number, 0)).to.throw();
    expect(client.ws.readyState).to.equal(WebSocket.CLOSED);
  });
});

describe("logs", function () {
  this.timeout(30_000);

  it("one api.log line per request with method, target, duration and outcome; no token or param anywhere", async () => {
    const { mkdtemp, readFile, readdir } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const logDir = await mkdtemp(path.join(tmpdir(), "tabwire-logs-"));
    const token = "very-secret-token-777";
    const hub = await startTestHub({ HUB_TOKEN: token, AUTH_KEY: "agent-key-transport", LOG_DIR: logDir, LOG_LEVEL: "debug" });
    try {
      const client = await TestRpcClient.connect(hub.url, { path: `/rpc?token=${token}` });
      const { target } = await client.call<{ target: string }>("tabs.open", {});
      await client.call("evaluate", { target, expression: `"marker-" + ${JSON.stringify(token)}` });
      await client.call("evaluate", { target: `${token}:x`, expression: "1" }).catch(() => undefined);
      await client.close();
    } finally {
      await hub.stop();
    }
    const { closeLogging } = await import("../../src/log.js");
    closeLogging();
    const files = await readdir(logDir);
    expect(files).to.include.members(["api.log", "combined.log", "error.log"]);
    const api = (await readFile(path.join(logDir, "api.log"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const evaluateLine = api.find((line) => line.method === "evaluate" && line.outcome === "ok");
    expect(evaluateLine).to.include.keys("method", "target", "durationMs", "outcome", "timestamp");
    expect(evaluateLine).to.not.have.property("params");
    for (const file of files) {
      const text = await readFile(path.join(logDir, file), "utf8");
      expect(text, file).to.not.include(token);
      expect(text, file).to.not.include("marker-");
    }
  });
});
