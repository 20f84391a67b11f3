import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { TOKEN_ROUTES } from "../support/http-request.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

const TOKEN = "http-api-token-1";
const AGENT_KEY = "http-agent-key-1";

interface Reply {
  status: number;
  body: Record<string, unknown> & { error?: { code: unknown; message: string } };
  headers: Headers;
}

describe("HTTP API of docs/protocol.md section 7 (real hub, real Chromium)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let rpc: TabwireClient;
  const base = (): string => `http://127.0.0.1:${hub.port}`;
  const request = async (methodAndPath: string, options: { body?: unknown; token?: string | null; root?: string } = {}): Promise<Reply> => {
    const [method, path] = methodAndPath.split(" ");
    const { body, token = TOKEN, root = base() } = options;
    const response = await fetch(`${root}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Reply["body"], headers: response.headers };
  };
  const pageCount = async (): Promise<number> => (await rpc.call("tabs.list", {})).tabs.length;

  before(async () => {
    hub = await startTestHub({ HUB_TOKEN: TOKEN, AUTH_KEY: AGENT_KEY, API_PORT: "0", MAX_PAYLOAD: "65536" });
    rpc = await connectClient(hub, { token: TOKEN });
  });
  after(async () => {
    await rpc.close();
    await hub.stop();
  });

  it("/health needs no token; the rest answer 401 without one, 404 for an unknown route, and never allow every origin", async () => {
    const health = await request("GET /health", { token: null });
    expect(health.status).to.equal(200);
    expect(health.body).to.include({ ok: true, browser: "connected" });
    expect((await request("GET /clients", { token: null })).status).to.equal(401);
    expect((await request("GET /clients", { token: "wrong-token-000" })).status).to.equal(401);
    const missing = await request("GET /nope");
    expect(missing.status).to.equal(404);
    expect(missing.body.error?.message).to.match(/no route GET \/nope/);
    expect(health.headers.get("access-control-allow-origin")).to.equal(null);
  });

  it("bad JSON is 400, a missing field 400, a body over MAX_PAYLOAD 413", async () => {
    expect((await request("POST /tabs/open", { body: "{not json" })).status).to.equal(400);
    const noTab = await request("POST /page/content", { body: { clientId: "local" } });
    expect(noTab.status).to.equal(400);
    expect(noTab.body.error?.message).to.match(/tabId is required/);
    expect(
      (await request("POST /page/execute", { body: { clientId: "local", tabId: "x", expression: "x".repeat(70_000) } })).status,
    ).to.equal(413);
  });

  it("tabs/open, clients, clients/:id/tabs, page/content, page/screenshot, page/execute and tabs/close with their statuses", async () => {
    const opened = await request("POST /tabs/open", { body: { clientId: "web", url: "data:text/html,<title>http</title><p>hello</p>" } });
    expect(opened.status).to.equal(200);
    const tabId = String(opened.body.tabId);
    expect(opened.body).to.deep.include({ clientId: "web", compositeClientId: `web:${tabId}`, status: "opened" });
    const clients = (await request("GET /clients")).body as unknown as {
      id: string;
      tabCount: number;
      tabs: { tabId: string; connected: boolean }[];
    }[];
    expect(clients.find((c) => c.id === "web")).to.deep.equal({
      id: "web",
      name: "web",
      tabCount: 1,
      tabs: [{ tabId, compositeClientId: `web:${tabId}`, connected: false, ready: false }],
    });
    expect((await request("GET /clients/web/tabs")).body).to.include({ baseClientId: "web", tabCount: 1 });
    expect((await request("GET /clients/nobody/tabs")).status).to.equal(404);
    const where = { clientId: "web", tabId };
    const content = await request("POST /page/content", { body: { ...where, format: "text" } });
    expect(content.body).to.include({ content: "hello", format: "text", length: 5 });
    const shot = await request("POST /page/screenshot", { body: where });
    expect(String(shot.body.imageData)).to.match(/^data:image\/png;base64,iVBOR/);
    expect((await request("POST /page/execute", { body: { ...where, expression: "document.title" } })).body).to.deep.equal({
      ...where,
      result: { type: "string", value: "http" },
    });
    const thrown = await request("POST /page/execute", { body: { ...where, expression: "nope()" } });
    expect(thrown.status).to.equal(200);
    expect(thrown.body.exceptionDetails).to.deep.include({ text: "ReferenceError: nope is not defined" });
    expect((await request("POST /page/execute", { body: { clientId: "web", tabId: "NOSUCHTAB", expression: "1" } })).status).to.equal(404);
    expect((await request("POST /tabs/close", { body: where })).body).to.deep.equal({ ...where, status: "closed", success: true });
    expect((await request("POST /tabs/close", { body: where })).status).to.equal(404);
  });

  it("every route but /health refuses a missing token with 401; a forbidden URL is 403; a missing tab 404 on every page route", async () => {
    for (const [method, path] of TOKEN_ROUTES)
      expect((await request(`${method} ${path}`, { body: method === "POST" ? {} : undefined, token: null })).status, path).to.equal(401);
    expect((await request("POST /tabs/open", { body: { clientId: "web", url: "file:///etc/passwd" } })).status).to.equal(403);
    const gone = { clientId: "web", tabId: "NOSUCHTAB" };
    for (const path of ["/page/content", "/page/screenshot", "/tabs/close"])
      expect((await request(`POST ${path}`, { body: gone })).status, path).to.equal(404);
  });

  it("POST /tabs/open of a URL that does not load is 502 NAVIGATION_FAILED, and its tab is already gone", async () => {
    const reply = await request("POST /tabs/open", { body: { clientId: "httpfail", url: "http://unresolvable.invalid/" } });
    expect(reply.status).to.equal(502);
    expect(reply.body.error?.code).to.equal(-32012);
    expect((await rpc.call("tabs.list", { clientId: "httpfail" })).tabs).to.deep.equal([]);
  });

  it("API_PORT serves the same API", async () => {
    const reply = await request("GET /status", { token: TOKEN, root: `http://127.0.0.1:${String(hub.apiPort)}` });
    expect(reply.status).to.equal(200);
    expect(reply.body).to.have.keys("server", "clients");
  });

  it("/v1/responses with no ready agent is 409", async () => {
    expect((await request("POST /v1/responses", { body: { input: "hi" } })).status).to.equal(409);
  });

  it("/v1/responses end to end: a new tab for the agent's client, its agent runs the task, and the tab is closed again", async () => {
    const home = await TestAgent.connect({ url: `${hub.url}/agent?token=${AGENT_KEY}`, clientId: "bo-agent" });
    await home.registration();
    home.ready();
    const spawned: TestAgent[] = [];
    let spawning = true;
    await rpc.call("events.subscribe", { topics: ["tabs"] });
    rpc.on("tab.opened", (params) => {
      if (!spawning || params.clientId !== "bo-agent") return;
      // What the DevTools extension does: an agent comes up in the new tab and registers from it.
      void TestAgent.connect({ url: `${hub.url}/agent?token=${AGENT_KEY}`, clientId: params.target }).then((agent) => {
        spawned.push(agent);
        agent.onRequest("evaluate", (task) => ({
          status: "success",
          output: { response: `did: ${String((task as { input: string }).input)}` },
        }));
        agent.ready();
      });
    });
    const before = await pageCount();
    const reply = await request("POST /v1/responses", { body: { input: "summarize", url: "data:text/html,<title>task</title>" } });
    expect(reply.status).to.equal(200);
    const [message] = reply.body as unknown as {
      id: string;
      type: string;
      role: string;
      content: unknown[];
      metadata: { clientId: string; tabId: string };
    }[];
    expect(message?.id).to.match(/^msg_/);
    expect(message).to.deep.include({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "did: summarize", annotations: [] }],
    });
    expect(message?.metadata.clientId).to.equal("bo-agent");
    expect(await pageCount()).to.equal(before);

    spawning = false;
    const timedOut = await request("POST /v1/responses", { body: { input: "x", wait_timeout: 300 } });
    expect(timedOut.status).to.equal(504);
    expect(await pageCount()).to.equal(before);
    await Promise.all([home.close(), ...spawned.map((agent) => agent.close())]);
  });
});
