import { readFileSync } from "node:fs";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { collect } from "../support/collect.js";
import { request, TOKEN_ROUTES, upgradeStatus, type Reply } from "../support/http-request.js";
import { RpcError, rpcFailure, TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "full-token-aaaaaaaa";
const SCOPED = "scoped-token-bbbbbb";
const AGENT_KEY = "agent-key-cccccccc";
// As long as FULL, so that a length check alone cannot tell them apart.
const WRONG = "full-token-aaaaaaab";
const FORBIDDEN = -32007;
const TARGET_NOT_FOUND = -32002;

/** An error object with every spelling of the target replaced, to compare a hidden tab's error with a missing one's. */
function normalized(error: { code: number; message: string; data?: unknown }, ...names: string[]): string {
  let text = JSON.stringify({ code: error.code, message: error.message, data: error.data });
  for (const name of names) text = text.split(name).join("<name>");
  return text;
}

/** Waits until the hub announces an agent ready on `target`. */
async function readyAgent(hub: Hub, options: { clientId: string; url: string; token: string }): Promise<TestAgent> {
  const watcher = await connect(hub, { token: options.token });
  await watcher.call("events.subscribe", { topics: ["agents"] });
  const ready = collect<{ target: string }>(watcher, "agent.ready", (all) => all.some((a) => a.target === options.clientId));
  const agent = await TestAgent.connect({ url: options.url, clientId: options.clientId });
  expect(await agent.registration()).to.include({ status: "accepted" });
  agent.ready();
  await ready;
  await watcher.close();
  return agent;
}

describe("security (real hubs, real Chromium)", function () {
  this.timeout(40_000);
  /** Tokens, a scoped token, AUTH_KEY and an Origin allowlist. */
  let guarded: Hub;
  /** No tokens; EVALUATE_ENABLED=false; file, chrome and javascript URLs allowed; RATE_LIMIT_PER_SEC=0. */
  let locked: Hub;

  before(async () => {
    [guarded, locked] = await Promise.all([
      // This file tries some hundred wrong tokens from one address; the failed-authentication limit has its own tests.
      startTestHub({
        ...{ HUB_TOKEN: FULL, HUB_TOKENS: `${SCOPED}:alpha`, AUTH_KEY: AGENT_KEY, ALLOWED_ORIGINS: "https://allowed.example" },
        ...{ AUTH_FAILURES_PER_MIN: "10000", AUTH_FAILURES_GLOBAL_PER_MIN: "10000" },
      }),
      startTestHub({ EVALUATE_ENABLED: "false", ALLOW_URL_SCHEMES: "file,chrome,javascript", RATE_LIMIT_PER_SEC: "0" }),
    ]);
  });
  after(async () => {
    await Promise.all([guarded?.stop(), locked?.stop()]);
  });

  describe("tokens", () => {
    it("no token, a wrong one, a wrong-length one, an empty one or another scheme get 401 at the upgrade, on /rpc and the agent paths", async () => {
      const base = guarded.url;
      const byHeader: Record<string, string>[] = [
        {},
        { authorization: `Bearer ${WRONG}` },
        { authorization: "Bearer x" },
        { authorization: "Bearer " },
        { authorization: `Basic ${FULL}` },
      ];
      for (const headers of byHeader) expect(await upgradeStatus(`${base}/rpc`, headers), JSON.stringify(headers)).to.equal(401);
      for (const token of [WRONG, "x", ""]) {
        expect(await upgradeStatus(`${base}/rpc?token=${token}`), `/rpc?token=${token}`).to.equal(401);
        if (token === "") continue;
        for (const agentPath of ["/", "/agent"])
          expect(await upgradeStatus(`${base}${agentPath}?token=${token}`), `${agentPath}?token=${token}`).to.equal(401);
      }
      expect(await upgradeStatus(`${base}/rpc?token=${FULL}`)).to.equal(101);
      expect(await upgradeStatus(`${base}/rpc`, { authorization: `Bearer ${SCOPED}` })).to.equal(101);
    });

    it("every HTTP route but /health answers 401 to a missing, wrong, wrong-length or empty token, by header or ?token=, without echoing it", async () => {
      const port = guarded.port;
      for (const [method, route] of TOKEN_ROUTES) {
        expect((await request(port, `${method} ${route}`)).status, `${method} ${route} with no token`).to.equal(401);
        for (const token of [WRONG, "x", ""]) {
          const byHeader = await request(port, `${method} ${route}`, { token });
          const byQuery = await request(port, `${method} ${route}`, { query: token });
          expect([byHeader.status, byQuery.status], `${method} ${route} with "${token}"`).to.deep.equal([401, 401]);
          if (token.length > 1) expect(byHeader.text + byQuery.text).to.not.include(token);
        }
      }
      expect((await request(port, "GET /status", { token: FULL })).status).to.equal(200);
      expect((await request(port, "GET /status", { query: FULL })).status).to.equal(200);
      expect((await request(port, "GET /health")).status).to.equal(200);
    });
  });

  describe("a token scoped to client alpha", () => {
    let full: TestRpcClient;
    let scoped: TestRpcClient;
    let foreign: OpenedTab;
    let agent: TestAgent;
    let missing: string;

    before(async () => {
      full = await connect(guarded, { token: FULL });
      scoped = await connect(guarded, { token: SCOPED });
      foreign = await openTab(full, "data:text/html,<title>beta-tab</title>", { clientId: "beta" });
      missing = `beta:${"F".repeat(foreign.tabId.length)}`;
      agent = await readyAgent(guarded, { clientId: foreign.target, url: `${guarded.url}/agent?token=${AGENT_KEY}`, token: FULL });
      agent.onRequest("evaluate", () => ({ status: "success", output: "leaked" }));
      agent.onRequest("execute_tool", () => ({ leaked: true }));
    });
    after(async () => {
      await agent?.close();
      if (foreign) await closeTab(full, foreign.target);
      await Promise.all([full?.close(), scoped?.close()]);
    });

    /** Checks that the other client's tab is untouched and its agent got no work. */
    async function expectUntouched(): Promise<void> {
      const { tabs } = await full.call<{ tabs: { target: string; title: string; url: string }[] }>("tabs.list", { clientId: "beta" });
      expect(tabs.find((t) => t.target === foreign.target)).to.include({
        title: "beta-tab",
        url: "data:text/html,<title>beta-tab</title>",
      });
      expect(agent.requests()).to.deep.equal([]);
    }

    it("gets TARGET_NOT_FOUND, indistinguishable from a missing tab, in every method of the OpenRPC document that takes a target", async () => {
      const extra: Readonly<Record<string, object>> = {
        "tabs.close": {},
        "tabs.activate": {},
        navigate: { url: "about:blank" },
        "tabs.back": {},
        "tabs.forward": {},
        "tabs.reload": {},
        "tabs.stop": {},
        evaluate: { expression: "document.title = 'pwned'" },
        content: {},
        snapshot: {},
        callOn: { functionDeclaration: "() => (document.title = 'pwned')" },
        screenshot: {},
        "console.subscribe": {},
        "console.list": {},
        "agent.run": { input: "hello" },
        "agent.call": { method: "execute_tool", params: {} },
        click: { selector: "body" },
        hover: { selector: "body" },
        type: { text: "pwned" },
        press: { key: "Enter" },
        fill: { selector: "input", value: "pwned" },
        fillForm: { fields: [{ selector: "input", value: "pwned" }] },
        select: { selector: "select", values: ["pwned"] },
        scroll: { deltaY: 100 },
        "wait.for": { text: "pwned" },
        drag: { from: { selector: "body" }, to: { x: 1, y: 1 } },
        upload: { selector: "input", files: [{ name: "pwned.txt", data: "cHduZWQ=" }] },
        "dialog.handle": { accept: true },
        emulate: { timezone: "Asia/Tokyo" },
        "network.conditions": { offline: true },
        pdf: {},
        "network.list": {},
        "network.get": { requestId: "1" },
        "network.har": {},
        "timeline.get": {},
        "timeline.export": {},
        "network.route": { url: "**", action: "block" },
        "network.subscribe": {},
        "screencast.start": { maxFps: 1 },
        "agent.pause": { reason: "pwned" },
        "agent.resume": {},
      };
      const document = JSON.parse(readFileSync(new URL("../../../protocol/tabwire.openrpc.json", import.meta.url), "utf8")) as {
        methods: { name: string; params: { name: string }[] }[];
      };
      const withTarget = document.methods.filter((m) => m.params.some((p) => p.name === "target")).map((m) => m.name);
      expect(Object.keys(extra)).to.have.members(withTarget);
      for (const method of withTarget) {
        const hidden = await rpcFailure(scoped.call(method, { target: foreign.target, ...extra[method] }));
        const absent = await rpcFailure(scoped.call(method, { target: missing, ...extra[method] }));
        expect(hidden.code, method).to.equal(TARGET_NOT_FOUND);
        expect(normalized(hidden, foreign.target, foreign.tabId), method).to.equal(normalized(absent, missing, missing.slice(5)));
      }
      expect(await scoped.call("tabs.list", { clientId: "beta" })).to.deep.equal(await scoped.call("tabs.list", { clientId: "nobody" }));
      const { clients } = await scoped.call<{ clients: { clientId: string }[] }>("clients.list");
      expect(clients.map((c) => c.clientId)).to.not.include("beta");
      await expectUntouched();
    });

    it("gets the same answer as for a missing tab or client on every HTTP route of section 7", async () => {
      const port = guarded.port;
      const as = (method: string, route: string, body?: unknown): Promise<Reply> =>
        request(port, `${method} ${route}`, { token: SCOPED, body });
      for (const route of ["/status", "/clients"]) {
        const reply = await as("GET", route);
        expect(reply.status, route).to.equal(200);
        expect(reply.text, route).to.not.include(foreign.tabId);
        expect(reply.text, route).to.not.include('"beta"');
      }
      const hiddenClient = await as("GET", "/clients/beta/tabs");
      const absentClient = await as("GET", "/clients/nobody/tabs");
      expect([hiddenClient.status, hiddenClient.text.split("beta").join("<id>")]).to.deep.equal([
        404,
        absentClient.text.split("nobody").join("<id>"),
      ]);
      const refused = await as("POST", "/tabs/open", { clientId: "beta", url: "about:blank" });
      expect(refused.status).to.equal(403);
      for (const route of ["/tabs/close", "/page/content", "/page/screenshot", "/page/execute"]) {
        const body = { clientId: "beta", expression: "document.title = 'pwned'" };
        const hidden = await as("POST", route, { ...body, tabId: foreign.tabId });
        const absent = await as("POST", route, { ...body, tabId: missing.slice(5) });
        expect(hidden.status, route).to.equal(404);
        expect(hidden.text.split(foreign.tabId).join("<tab>"), route).to.equal(absent.text.split(missing.slice(5)).join("<tab>"));
      }
      // The only ready agent belongs to beta: the scoped caller is told there is none, as if it did not exist.
      const picked = await as("POST", "/v1/responses", { input: "hello", wait_timeout: 1_000 });
      expect(picked.status).to.equal(409);
      const { tabs } = await full.call<{ tabs: unknown[] }>("tabs.list", { clientId: "beta" });
      expect(tabs).to.have.length(1);
      await expectUntouched();
    });
  });

  describe("origins", () => {
    it("a foreign Origin gets 403 at the upgrade on /rpc, / and /agent, even with a valid token", async () => {
      const evil = { origin: "https://evil.example" };
      expect(await upgradeStatus(`${guarded.url}/rpc`, { ...evil, authorization: `Bearer ${FULL}` })).to.equal(403);
      for (const agentPath of ["/", "/agent"])
        expect(await upgradeStatus(`${guarded.url}${agentPath}?token=${AGENT_KEY}`, evil), agentPath).to.equal(403);
      expect(await upgradeStatus(`${guarded.url}/rpc`, { origin: "https://allowed.example", authorization: `Bearer ${FULL}` })).to.equal(
        101,
      );
    });

    it("a foreign Origin gets 403 on the HTTP routes too, so a web page cannot drive the hub (a no-token hub least of all)", async () => {
      const origin = "https://evil.example";
      for (const [method, route] of TOKEN_ROUTES) {
        expect((await request(guarded.port, `${method} ${route}`, { token: FULL, origin })).status, `${method} ${route}`).to.equal(403);
      }
      const observer = await connect(locked);
      try {
        const before = (await observer.call<{ tabs: unknown[] }>("tabs.list")).tabs.length;
        // What a page's fetch(..., {mode: "no-cors"}) sends: a simple request, no preflight.
        const opened = await request(locked.port, "POST /tabs/open", {
          origin,
          contentType: "text/plain",
          body: { clientId: "evil", url: "about:blank" },
        });
        const after = await observer.call<{ tabs: { target: string; clientId: string }[] }>("tabs.list");
        for (const tab of after.tabs.filter((t) => t.clientId === "evil")) await closeTab(observer, tab.target);
        expect(opened.status).to.equal(403);
        expect(after.tabs.length).to.equal(before);
      } finally {
        await observer.close();
      }
    });
  });

  describe("ids", () => {
    it("agent ids with ../, 10,000 characters or characters outside the set are rejected on / with 1008, and not echoed whole", async () => {
      const ids = [
        "../etc",
        "alpha:../../etc",
        "a".repeat(10_000),
        `alpha:${"t".repeat(10_000)}`,
        "al pha:t1",
        "alpha:t1\u0000",
        "alpha:t\u00e9",
      ];
      for (const clientId of ids) {
        const agent = await TestAgent.connect({ url: `${guarded.url}/?token=${AGENT_KEY}`, clientId });
        const ack = await agent.registration();
        expect(ack.status, JSON.stringify(clientId.slice(0, 20))).to.equal("rejected");
        expect(JSON.stringify(ack).length).to.be.below(1_000);
        expect((await agent.closed).code).to.equal(1008);
      }
      expect(guarded.services.agents.all().filter((a) => a.clientId.includes(".."))).to.deep.equal([]);
    });

    it("ids with ../ or 10,000 characters in RPC params and HTTP bodies are refused as invalid (-32602, 400), never looked up", async () => {
      const client = await connect(guarded, { token: FULL });
      try {
        const long = "a".repeat(10_000);
        const calls: [string, object][] = [
          ["tabs.open", { clientId: "../x" }],
          ["tabs.open", { clientId: long }],
          ["tabs.list", { clientId: "../x" }],
          ["evaluate", { target: "../x:ABC", expression: "1" }],
          ["evaluate", { target: `local:${long}`, expression: "1" }],
          ["agent.run", { target: "alpha:../../etc", input: "x" }],
        ];
        for (const [method, params] of calls) {
          const error = await rpcFailure(client.call(method, params));
          expect(error.code, `${method} ${JSON.stringify(params).slice(0, 60)}`).to.equal(-32602);
          expect(error.message.length).to.be.below(1_000);
        }
        const port = guarded.port;
        expect((await request(port, "POST /tabs/open", { token: FULL, body: { clientId: "../x" } })).status).to.equal(400);
        expect((await request(port, "POST /page/content", { token: FULL, body: { clientId: "../x", tabId: "y" } })).status).to.equal(400);
        expect((await request(port, "POST /page/content", { token: FULL, body: { clientId: "local", tabId: long } })).status).to.equal(400);
        expect((await request(port, "GET /clients/..%2F..%2Fetc/tabs", { token: FULL })).status).to.be.oneOf([400, 404]);
      } finally {
        await client.close();
      }
    });
  });

  describe("EVALUATE_ENABLED=false", () => {
    let client: TestRpcClient;
    let tab: OpenedTab;
    const title = async (): Promise<string | undefined> =>
      (await client.call<{ tabs: { target: string; title: string }[] }>("tabs.list")).tabs.find((t) => t.target === tab.target)?.title;

    before(async () => {
      client = await connect(locked);
      tab = await openTab(client, "data:text/html,<title>kept</title>");
    });
    after(async () => {
      if (tab) await closeTab(client, tab.target);
      await client?.close();
    });

    it("evaluate, callOn, their batch items, POST /page/execute and an agent's own calls answer FORBIDDEN, and nothing runs", async () => {
      const code = "document.title = 'pwned'";
      expect((await rpcFailure(client.call("evaluate", { target: tab.target, expression: code }))).code).to.equal(FORBIDDEN);
      expect((await rpcFailure(client.call("callOn", { target: tab.target, functionDeclaration: `() => (${code})` }))).code).to.equal(
        FORBIDDEN,
      );
      client.sendRaw(
        JSON.stringify([
          { jsonrpc: "2.0", id: "e", method: "evaluate", params: { target: tab.target, expression: code } },
          {
            jsonrpc: "2.0",
            id: "c",
            method: "callOn",
            params: { target: tab.target, functionDeclaration: `() => (${code})`, selector: "html" },
          },
        ]),
      );
      const batch = (await client.nextFrame()) as { id: string; error?: { code: number } }[];
      expect(batch.map((r) => [r.id, r.error?.code]).sort()).to.deep.equal([
        ["c", FORBIDDEN],
        ["e", FORBIDDEN],
      ]);
      const execute = await request(locked.port, "POST /page/execute", {
        body: { clientId: tab.clientId, tabId: tab.tabId, expression: code },
      });
      expect([execute.status, execute.body.error?.code]).to.deep.equal([403, FORBIDDEN]);
      const agent = await TestAgent.connect({ url: `${locked.url}/agent`, clientId: tab.target });
      try {
        expect(await agent.registration()).to.include({ status: "accepted" });
        const own = await agent.call("evaluate", { target: tab.target, expression: code }).catch((e: { code: number }) => e);
        expect(own).to.have.property("code", FORBIDDEN);
        const ownCallOn = await agent
          .call("callOn", { target: tab.target, functionDeclaration: `() => (${code})` })
          .catch((e: { code: number }) => e);
        expect(ownCallOn).to.have.property("code", FORBIDDEN);
      } finally {
        await agent.close();
      }
      expect(await title()).to.equal("kept");
    });

    it("navigate and tabs.open to javascript: URLs are FORBIDDEN too, even with ALLOW_URL_SCHEMES=javascript (they run code)", async () => {
      const url = "javascript:document.title='pwned'";
      expect((await rpcFailure(client.call("navigate", { target: tab.target, url }))).code).to.equal(FORBIDDEN);
      expect(await title()).to.equal("kept");
      const opened = await client.call<{ target: string }>("tabs.open", { url }).catch((e: RpcError) => e);
      if (!(opened instanceof RpcError)) await closeTab(client, opened.target);
      expect(opened).to.have.property("code", FORBIDDEN);
    });
  });

  describe("URL schemes", () => {
    it("file:, chrome:, view-source: and javascript: URLs, in any case, are FORBIDDEN in tabs.open, navigate and agent.run, over RPC and HTTP", async () => {
      const client = await connect(guarded, { token: FULL });
      const tab = await openTab(client, "data:text/html,<title>stay</title>");
      try {
        const before = (await client.call<{ tabs: unknown[] }>("tabs.list")).tabs.length;
        const urls = [
          "file:///etc/passwd",
          "FILE:///etc/passwd",
          "chrome://version/",
          "Chrome://settings",
          "view-source:file:///etc/passwd",
          "javascript:1",
        ];
        for (const url of urls) {
          expect((await rpcFailure(client.call("tabs.open", { url }))).code, `tabs.open ${url}`).to.equal(FORBIDDEN);
          expect((await rpcFailure(client.call("navigate", { target: tab.target, url }))).code, `navigate ${url}`).to.equal(FORBIDDEN);
          expect((await rpcFailure(client.call("agent.run", { target: tab.target, input: "go", url }))).code, `agent.run ${url}`).to.equal(
            FORBIDDEN,
          );
          const http = await request(guarded.port, "POST /tabs/open", { token: FULL, body: { clientId: "local", url } });
          expect([http.status, http.body.error?.code], `POST /tabs/open ${url}`).to.deep.equal([403, FORBIDDEN]);
        }
        const { tabs } = await client.call<{ tabs: { target: string; url: string }[] }>("tabs.list");
        expect(tabs.length).to.equal(before);
        expect(tabs.find((t) => t.target === tab.target)?.url).to.equal("data:text/html,<title>stay</title>");
      } finally {
        await closeTab(client, tab.target);
        await client.close();
      }
    });

    it("ALLOW_URL_SCHEMES=file,chrome lets tabs.open and navigate load them", async () => {
      const client = await connect(locked);
      const opened = await openTab(client, "file:///etc/hostname");
      try {
        expect(opened.url).to.equal("file:///etc/hostname");
        expect(await client.call("navigate", { target: opened.target, url: "chrome://version/" })).to.have.property(
          "url",
          "chrome://version/",
        );
      } finally {
        await closeTab(client, opened.target);
        await client.close();
      }
    });
  });
});
