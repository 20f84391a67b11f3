import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode } from "../../src/errors.js";
import type { Hub } from "../../src/hub.js";
import { METHODS } from "../../src/methods/index.js";
import { hubTools } from "../../src/mcp/tools.js";
import { loadOpenRpc } from "../../src/rpc/params-validator.js";
import { callOver, socketWith } from "../support/bare-socket.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { request, upgradeStatus } from "../support/http-request.js";
import { rpcFailure, TestRpcClient } from "../support/rpc-client.js";
import { startTestHub } from "../support/test-hub.js";

const FULL = "full-hub-token-1";
const ALPHA = "alpha-full-token";
const BETA = "beta-full-token";
const READER = "alpha-reader-token";
const ACTOR = "alpha-actor-token";
const WIDE_READER = "every-client-reader";
const ACT_ONLY = "alpha-act-only-token";

type MethodName = keyof typeof METHODS;
const document = loadOpenRpc();

/** A method's example params from the OpenRPC document, aimed at the test's tab and client. */
function exampleParams(method: string, target: string): Record<string, unknown> {
  const entry = document.methods.find((each) => each.name === method) as unknown as {
    examples?: { params: { name: string; value: unknown }[] }[];
  };
  const params: Record<string, unknown> = {};
  for (const { name, value } of entry.examples?.[0]?.params ?? []) params[name] = value;
  if ("target" in params) params.target = target;
  if ("clientId" in params) params.clientId = "alpha";
  return params;
}

describe("capabilities per token (ACCESS_FILE): the hub refuses what a token may not do at every door (real hub, real Chromium)", function () {
  this.timeout(90_000);
  let hub: Hub;
  let site: FixtureServer;
  let dir: string;
  let owner: TestRpcClient;
  let target: string;
  let tabId: string;
  let base: string;

  before(async () => {
    site = await startFixtureServer();
    dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-caps-"));
    const file = path.join(dir, "access.json");
    const tokens = [
      { token: READER, clients: ["alpha"], capabilities: ["read"] },
      { token: ACTOR, clients: ["alpha"], capabilities: ["read", "act"] },
      { token: WIDE_READER, capabilities: ["read"] },
      { token: ACT_ONLY, clients: ["alpha"], capabilities: ["act"] },
    ];
    await writeFile(file, JSON.stringify({ tokens }));
    await chmod(file, 0o600);
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${ALPHA}:alpha,${BETA}:beta`,
      ACCESS_FILE: file,
      AUTH_KEY: "caps-agent-key",
      RATE_LIMIT_PER_SEC: "0",
    });
    base = hub.url.replace(/^ws/, "http");
    owner = await TestRpcClient.connect(hub.url, { token: ALPHA });
    ({ target, tabId } = await owner.call<{ target: string; tabId: string }>("tabs.open", {
      clientId: "alpha",
      url: site.url("actions.html"),
    }));
  });
  after(async () => {
    await owner?.close();
    await hub?.stop();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** What the page and the client look like, through the client's own full token: the same before and after an attack. */
  async function pageState(): Promise<unknown> {
    const { tabs } = await owner.call<{ tabs: { target: string; url: string }[] }>("tabs.list", { clientId: "alpha" });
    const { value } = await owner.call<{ value: unknown }>("evaluate", {
      target,
      expression: "[document.getElementById('pressed').textContent, location.href, document.cookie, innerWidth]",
    });
    return { tabs: tabs.map((tab) => [tab.target, tab.url]), value };
  }

  it("a read-only token: every method outside read is FORBIDDEN over /rpc, naming the capability, with no side effect", async () => {
    const reader = await TestRpcClient.connect(hub.url, { token: READER });
    try {
      const before = await pageState();
      const refused = Object.values(METHODS).filter((method) => !["read", "connection"].includes(method.traits.needs));
      expect(refused.length).to.be.at.least(30);
      for (const method of refused) {
        const error = await rpcFailure(reader.call(method.name, exampleParams(method.name, target)));
        expect(error.code, method.name).to.equal(ErrorCode.FORBIDDEN);
        expect(error.data, method.name).to.deep.equal({ capability: method.traits.needs });
        expect(error.message, method.name).to.contain(`"${method.traits.needs}"`);
      }
      expect(await pageState()).to.deep.equal(before);
      const { tabs } = await reader.call<{ tabs: { target: string }[] }>("tabs.list");
      expect(tabs.map((tab) => tab.target)).to.deep.equal([target]);
      const shot = await reader.call<{ data: string }>("screenshot", { target });
      expect(shot.data.length).to.be.greaterThan(100);
      expect(await reader.call("ping")).to.have.property("pong", true);
    } finally {
      await reader.close();
    }
  });

  it("a read token's calls inside a JSON-RPC batch are refused one by one; its reads in the batch answer", async () => {
    const reader = await TestRpcClient.connect(hub.url, { token: READER });
    try {
      const before = await pageState();
      reader.sendRaw(
        JSON.stringify([
          { jsonrpc: "2.0", id: 1, method: "tabs.list", params: {} },
          { jsonrpc: "2.0", id: 2, method: "evaluate", params: { target, expression: "document.cookie = 'stolen=1'" } },
          { jsonrpc: "2.0", id: 3, method: "click", params: { target, selector: "#btn" } },
          { jsonrpc: "2.0", method: "tabs.close", params: { target } },
        ]),
      );
      const answers = (await reader.nextFrame()) as { id: number; result?: unknown; error?: { code: number; data: unknown } }[];
      expect(answers.map((answer) => answer.id)).to.deep.equal([1, 2, 3]);
      expect(answers[0]).to.have.property("result");
      expect(answers[1]?.error).to.deep.include({ code: ErrorCode.FORBIDDEN, data: { capability: "script" } });
      expect(answers[2]?.error).to.deep.include({ code: ErrorCode.FORBIDDEN, data: { capability: "act" } });
      expect(await pageState()).to.deep.equal(before);
    } finally {
      await reader.close();
    }
  });

  it("a read-only token over the HTTP API: the listings and reads answer, every route that acts is 403 FORBIDDEN, /metrics too", async () => {
    const port = hub.port;
    const before = await pageState();
    expect((await request(port, "GET /clients", { token: READER })).status).to.equal(200);
    expect((await request(port, "POST /page/content", { token: READER, body: { clientId: "alpha", tabId } })).status).to.equal(200);
    const attacks: [string, object][] = [
      ["POST /tabs/open", { clientId: "alpha", url: site.url("other.html") }],
      ["POST /tabs/close", { clientId: "alpha", tabId }],
      ["POST /page/execute", { clientId: "alpha", tabId, expression: "document.cookie = 'stolen=1'" }],
      ["POST /v1/responses", { input: "buy everything", clientId: "alpha" }],
    ];
    for (const [route, body] of attacks) {
      const reply = await request(port, route, { token: READER, body });
      expect(reply.status, route).to.equal(403);
      expect(reply.body.error?.code, route).to.equal(ErrorCode.FORBIDDEN);
    }
    const metrics = await request(port, "GET /metrics", { token: READER });
    expect(metrics.status).to.equal(403);
    expect(metrics.body.error).to.deep.include({ code: ErrorCode.FORBIDDEN, data: { capability: "admin" } });
    expect(await pageState()).to.deep.equal(before);
  });

  it("a read-only token over /mcp: tools/list has only the tools it may call, and a hidden tool's call is refused", async () => {
    const client = new Client({ name: "tabwire-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp?caps=all`), {
      requestInit: { headers: { Authorization: `Bearer ${READER}` } },
    });
    await client.connect(transport);
    try {
      const methodOf = new Map(hubTools(document).map((tool) => [tool.name, tool.method]));
      const { tools } = await client.listTools();
      const listed = tools.map((tool) => methodOf.get(tool.name) as MethodName);
      expect(listed).to.include.members(["tabs.list", "snapshot", "screenshot"]);
      for (const method of listed) expect(["read", "connection"], method).to.include(METHODS[method].traits.needs);
      const before = await pageState();
      for (const [name, args] of [
        ["tabs_open", { url: site.url("other.html") }],
        ["evaluate", { target, expression: "document.cookie = 'stolen=1'" }],
        ["click", { target, selector: "#btn" }],
      ] as const) {
        const answer = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text?: string }[] };
        expect(answer.isError, name).to.equal(true);
        expect(answer.content[0]?.text, name).to.match(/needs the capability "(act|script)"/);
      }
      expect(await pageState()).to.deep.equal(before);
    } finally {
      await client.close();
    }
  });

  it("a token that may act but not read over /mcp: tabs_open and a click that leaves the page answer without the page's snapshot", async () => {
    const client = new Client({ name: "tabwire-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${ACT_ONLY}` } },
    });
    await client.connect(transport);
    type Answer = { isError?: boolean; content: { text?: string }[]; structuredContent?: Record<string, unknown> };
    try {
      const opened = (await client.callTool({ name: "tabs_open", arguments: { url: site.url("actions.html") } })) as Answer;
      expect(opened.isError).to.not.equal(true);
      const text = opened.content[0]?.text ?? "";
      expect(text).to.not.match(/RootWebArea|Actions/);
      expect(opened.structuredContent).to.not.have.property("snapshot");
      const mine = opened.structuredContent?.target as string;
      const clicked = (await client.callTool({ name: "click", arguments: { target: mine, selector: "#next" } })) as Answer;
      expect(JSON.parse(clicked.content[0]?.text ?? "")).to.deep.include({ ok: true, navigated: { url: site.url("other.html") } });
      expect(clicked.content[0]?.text).to.not.match(/RootWebArea|other"/);
    } finally {
      await client.close();
    }
  });

  it("/cdp is refused (403 with a clear body) to a token without script, and the discovery endpoint too", async () => {
    expect(await upgradeStatus(`${hub.url}/cdp?token=${READER}`)).to.equal(403);
    expect(await upgradeStatus(`${hub.url}/cdp?token=${ACTOR}`)).to.equal(403);
    expect(await upgradeStatus(`${hub.url}/cdp?token=${ALPHA}`)).to.equal(101);
    const discovery = await request(hub.port, "GET /json/version", { token: READER });
    expect(discovery.status).to.equal(403);
    expect(discovery.body.error?.message).to.contain('needs the capability "script"');
  });

  it("the dashboard with a read token: its view answers, take-over and pause are FORBIDDEN", async () => {
    const signIn = await fetch(`${base}/ui/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ token: READER }),
    });
    expect(signIn.status).to.equal(200);
    // The page leaves out the take-over and pause controls of a session without act and agents.
    expect(await signIn.clone().json()).to.deep.include({ signedIn: true, capabilities: ["read"] });
    const cookie = /^(tabwire_session=[^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")?.[1] as string;
    const ws = await socketWith(`${hub.url}/rpc`, { cookie, origin: base });
    try {
      const before = await pageState();
      expect((await callOver(ws, "tabs.list", {})).result).to.have.property("tabs");
      expect((await callOver(ws, "screencast.start", { target })).result).to.have.property("subscriptionId");
      expect((await callOver(ws, "click", { target, x: 10, y: 10 })).error).to.deep.include({
        code: ErrorCode.FORBIDDEN,
        data: { capability: "act" },
      });
      const pause = await callOver(ws, "agent.pause", { target });
      expect(pause.error).to.deep.include({ code: ErrorCode.FORBIDDEN, data: { capability: "agents" } });
      expect(await pageState()).to.deep.equal(before);
    } finally {
      ws.close();
    }
  });

  it("a token with act but not script: click works, evaluate is FORBIDDEN", async () => {
    const actor = await TestRpcClient.connect(hub.url, { token: ACTOR });
    try {
      await actor.call("click", { target, selector: "#btn" });
      const { value } = await owner.call<{ value: string }>("evaluate", {
        target,
        expression: "document.getElementById('pressed').textContent",
      });
      expect(value).to.match(/Pressed 1/);
      const error = await rpcFailure(actor.call("evaluate", { target, expression: "1" }));
      expect(error.code).to.equal(ErrorCode.FORBIDDEN);
      expect(error.data).to.deep.equal({ capability: "script" });
    } finally {
      await actor.close();
    }
  });

  it("admin: a read token of every client gets hub.stats for its clients but not the whole hub's figures, nor /metrics", async () => {
    const wide = await TestRpcClient.connect(hub.url, { token: WIDE_READER });
    const full = await TestRpcClient.connect(hub.url, { token: FULL });
    try {
      const stats = await wide.call<{ clients: { clientId: string }[] }>("hub.stats");
      expect(stats.clients.map((client) => client.clientId)).to.include("alpha");
      expect(stats).not.to.have.property("hub");
      expect(await full.call("hub.stats")).to.have.property("hub");
      const metrics = await request(hub.port, "GET /metrics", { token: WIDE_READER });
      expect(metrics.status).to.equal(403);
      expect(metrics.body.error).to.deep.include({ data: { capability: "admin" } });
    } finally {
      await wide.close();
      await full.close();
    }
  });

  it("another client's token, a scoped full token and a stranger get what they got before", async () => {
    const beta = await TestRpcClient.connect(hub.url, { token: BETA });
    try {
      const error = await rpcFailure(beta.call("evaluate", { target, expression: "1" }));
      expect(error.code).to.equal(ErrorCode.TARGET_NOT_FOUND);
      expect((await beta.call<{ tabs: unknown[] }>("tabs.list")).tabs).to.deep.equal([]);
    } finally {
      await beta.close();
    }
    expect(await owner.call("evaluate", { target, expression: "6 * 7" })).to.have.property("value", 42);
    const stranger = await TestRpcClient.connect(hub.url, { token: "not-a-token-at-all" }).catch((e: { status?: number }) => e.status);
    expect(stranger).to.equal(401);
    expect((await request(hub.port, "GET /metrics", { token: FULL })).status).to.equal(200);
  });
});
