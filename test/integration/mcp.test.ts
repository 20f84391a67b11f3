import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hub } from "../../src/hub.js";
import { hubTools, type McpEntry } from "../../src/mcp/tools.js";
import { loadOpenRpc } from "../../src/rpc/params-validator.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { collect } from "../support/collect.js";
import { call, driveFormPage, result } from "../support/mcp-tools.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL_TOKEN = "mcp-full-token";
const ALPHA_TOKEN = "mcp-token-alpha";
const BETA_TOKEN = "mcp-token-beta";

const clientInfo = { name: "tabwire-test", version: "1.0.0" };

/** The hub's /mcp URL. */
const mcpUrl = (hub: Hub): URL => new URL(`${hub.url.replace(/^ws/, "http")}/mcp`);

/** An MCP client of the official SDK, over Streamable HTTP, with a token (and a query for /mcp, as `?caps=`). */
async function mcpClient(hub: Hub, token: string, query = ""): Promise<Client> {
  const client = new Client({ name: "tabwire-test", version: "1.0.0" });
  const url = new URL(`${mcpUrl(hub).href}${query}`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

describe("MCP at /mcp: the official SDK client drives the hub, one client per session (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL_TOKEN,
      HUB_TOKENS: `${ALPHA_TOKEN}:alpha,${BETA_TOKEN}:beta`,
      AUTH_KEY: "mcp-agent-key",
      MCP_SESSION_IDLE_MS: "3000",
    });
  });
  after(async () => {
    await hub?.stop();
    await site?.close();
  });

  it("lists the default tools (one per method marked x-mcp, no caps), named with _, with their texts for a model; ?caps= adds the others", async () => {
    const client = await mcpClient(hub, FULL_TOKEN);
    const withCaps = await mcpClient(hub, FULL_TOKEN, "?caps=emulation,routing");
    try {
      const { tools } = await client.listTools();
      const document = loadOpenRpc();
      const expected = hubTools(document).filter((tool) => tool.method !== "agent.run");
      // agent_run is offered only while an agent of the session's client is connected: none is here.
      expect(tools.map((tool) => tool.name)).to.deep.equal(expected.filter((tool) => tool.cap === undefined).map((tool) => tool.name));
      expect((await withCaps.listTools()).tools.map((tool) => tool.name)).to.deep.equal(expected.map((tool) => tool.name));
      const mcpParams = (document as unknown as { "x-mcp-params": Record<string, string | null> })["x-mcp-params"];
      for (const tool of tools) {
        const method = (
          document.methods as unknown as { name: string; params: { name: string; required?: boolean }[]; "x-mcp": McpEntry }[]
        ).find((each) => each.name.replaceAll(".", "_") === tool.name);
        const entry = method?.["x-mcp"] as McpEntry;
        const offered = (method?.params ?? []).filter(
          (param) => !entry.hide?.includes(param.name) && (mcpParams[param.name] !== null || entry.params?.[param.name] !== undefined),
        );
        const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
        expect(Object.keys(properties), tool.name).to.deep.equal(offered.map((param) => param.name));
        expect(tool.inputSchema.required ?? [], tool.name).to.deep.equal(offered.filter((p) => p.required).map((p) => p.name));
        for (const param of offered)
          expect(properties[param.name]?.description, `${tool.name} ${param.name}`).to.equal(
            entry.params?.[param.name] ?? mcpParams[param.name],
          );
        expect(JSON.stringify(tool.inputSchema), tool.name).to.not.include("$ref");
        expect([tool.description, tool.annotations?.title, tool.annotations?.readOnlyHint]).to.deep.equal([
          entry.description,
          entry.title,
          entry.readOnly,
        ]);
      }
      // An action's changes are always the front's default (the model gets what its action changed): not offered.
      expect(tools.find((tool) => tool.name === "click")?.inputSchema.properties).to.not.have.property("changes");
      expect(tools.find((tool) => tool.name === "tabs_close")?.annotations).to.include({ readOnlyHint: false, destructiveHint: true });
      expect(tools.find((tool) => tool.name === "snapshot")?.annotations).to.include({ readOnlyHint: true });
      // The front's defaults for models show in the schemas.
      const snapshotParams = tools.find((tool) => tool.name === "snapshot")?.inputSchema.properties as Record<
        string,
        { default?: unknown }
      >;
      expect([snapshotParams.source?.default, snapshotParams.compact?.default, snapshotParams.maxChars?.default]).to.deep.equal([
        "dom",
        true,
        40_000,
      ]);
      // A tool of a group the session did not ask for is not there to call; an unknown group is refused with the known ones.
      const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("index.html") });
      // The schemas leave out additionalProperties: false; a param the tool does not know is refused by its name.
      const unknown = await call(client, "scroll", { target, deltaZ: 10 });
      expect(unknown.isError).to.equal(true);
      expect(unknown.content[0]?.text).to.match(/^INVALID_PARAMS .*deltaZ/);
      const hidden = await call(client, "emulate", { target, colorScheme: "dark" });
      expect([hidden.isError, hidden.content[0]?.text]).to.deep.equal([
        true,
        "METHOD_NOT_FOUND (-32601): no tool emulate; list them with tools/list",
      ]);
      expect(
        await result(withCaps, "emulate", {
          target: (await result<{ target: string }>(withCaps, "tabs_open", {})).target,
          colorScheme: "dark",
        }),
      ).to.deep.equal({});
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo },
      };
      const refused = await fetch(`${mcpUrl(hub).href}?caps=vision`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${FULL_TOKEN}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(initialize),
      });
      expect(refused.status).to.equal(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).to.equal(
        'no tools caps "vision" at /mcp; ask for emulation, routing, all (comma-separated)',
      );
    } finally {
      await Promise.all([client.close(), withCaps.close()]);
    }
  });

  it("opens a fixture page, snapshots it as text, clicks a ref, reads the result, and takes a screenshot that is an image", async () => {
    const client = await mcpClient(hub, FULL_TOKEN);
    try {
      const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("form.html") });
      const snapshot = await call(client, "snapshot", { target });
      const text = snapshot.content[0]?.text ?? "";
      expect(text).to.match(/^- RootWebArea "Form Fixture" \[ref=e\d+\]/);
      const ref = /button "Submit" \[ref=(e\d+)\]/.exec(text)?.[1] as string;
      const clicked = await call(client, "click", { target, ref });
      expect(clicked.structuredContent).to.deep.include({ ok: true });
      // What the click changed comes as lines under the answer, written as the compact snapshot writes them.
      expect(clicked.content[0]?.text).to.equal('{"ok":true}\nPage changes:\n+ "submitted ada@example.com"\n- "idle"');
      const read = await result<{ value: string }>(client, "evaluate", {
        target,
        expression: "document.querySelector('#status').textContent",
      });
      expect(read.value).to.equal("submitted ada@example.com");
      const shot = await call(client, "screenshot", { target });
      const image = shot.content[0];
      expect(image).to.include({ type: "image", mimeType: "image/png" });
      const bytes = Buffer.from(image?.data ?? "", "base64");
      expect(bytes.subarray(1, 4).toString("latin1")).to.equal("PNG");
      expect(Math.max(bytes.readUInt32BE(16), bytes.readUInt32BE(20))).to.be.at.most(1_568);
      const metrics = await (await fetch(new URL("/metrics", mcpUrl(hub)), { headers: { authorization: `Bearer ${FULL_TOKEN}` } })).text();
      expect(Number(/^tabwire_connections\{kind="mcp"\} (\d+)$/m.exec(metrics)?.[1])).to.be.at.least(1);
      expect(metrics).to.match(/^tabwire_requests_total\{method="snapshot",outcome="ok"\} [1-9]/m);
      const failed = await call(client, "click", { target, selector: "#nothing-here", timeoutMs: 1_000 });
      expect(failed.isError).to.equal(true);
      expect(failed.content[0]?.text).to.match(/^TIMEOUT \(-32001\): no element matched the selector "#nothing-here"/);
    } finally {
      await client.close();
    }
  });

  it("the default snapshot is written for a model: refs where one can act, labels in their fields, a table row a line; its refs act", async () => {
    const client = await mcpClient(hub, FULL_TOKEN);
    try {
      const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("roles.html") });
      const text = (await call(client, "snapshot", { target })).content[0]?.text ?? "";
      const lines = text.split("\n");
      expect(lines).to.include.members([
        '      - textbox "Email address" [ref=' + /textbox "Email address" \[ref=(e\d+)\]/.exec(text)?.[1] + ']: "ada@example.com"',
        '      - row: "Plan" | "Price"',
        '      - row: "Free" | "0"',
        '        - option "Green"',
      ]);
      expect(text).to.not.match(/LabelText|StaticText "Email address"|caption|StaticText "Prices"/);
      const ref = /- row: "Pro" \| link "9" \[ref=(e\d+)\]/.exec(text)?.[1] as string;
      expect(await result(client, "click", { target, ref })).to.include({ ok: true });
      expect((await result<{ value: string }>(client, "evaluate", { target, expression: "location.hash" })).value).to.equal("#pro");
      const full = (await call(client, "snapshot", { target, compact: false })).content[0]?.text ?? "";
      expect(text.length).to.be.below(full.length * 0.8);
    } finally {
      await client.close();
    }
  });

  it("two sessions in parallel, 50 interleaved calls each, never see each other's tabs or cookies", async () => {
    const [one, two] = await Promise.all([mcpClient(hub, FULL_TOKEN), mcpClient(hub, FULL_TOKEN)]);
    try {
      const work = async (client: Client, who: string): Promise<void> => {
        const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("index.html") });
        await result(client, "evaluate", { target, expression: `document.cookie = "who=${who}"` });
        for (let i = 0; i < 25; i++) {
          const { tabs } = await result<{ tabs: { target: string }[] }>(client, "tabs_list");
          expect(tabs.map((tab) => tab.target)).to.deep.equal([target]);
          const cookie = await result<{ value: string }>(client, "evaluate", { target, expression: "document.cookie" });
          expect(cookie.value).to.equal(`who=${who}`);
        }
      };
      await Promise.all([work(one, "one"), work(two, "two")]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it("a scoped token's session acts as its client: another client's tab is TARGET_NOT_FOUND, its tabs_list shows none of them", async () => {
    const [alpha, beta] = await Promise.all([mcpClient(hub, ALPHA_TOKEN), mcpClient(hub, BETA_TOKEN)]);
    try {
      const { target, clientId } = await result<{ target: string; clientId: string }>(alpha, "tabs_open", { url: site.url("form.html") });
      expect(clientId).to.equal("alpha");
      const theft = await call(beta, "evaluate", { target, expression: "document.title" });
      expect(theft.isError).to.equal(true);
      expect(theft.content[0]?.text).to.match(/^TARGET_NOT_FOUND/);
      expect((await result<{ tabs: unknown[] }>(beta, "tabs_list")).tabs).to.deep.equal([]);
      const stolen = await call(beta, "tabs_open", { url: site.url("form.html"), clientId: "alpha" });
      expect(stolen.isError).to.equal(true);
    } finally {
      await Promise.all([alpha.close(), beta.close()]);
    }
  });

  it("agent_run is offered to a session whose client has an agent connected, and to no other", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=mcp-agent-key`, clientId: "alpha:worker" });
    const [alpha, beta] = await Promise.all([mcpClient(hub, ALPHA_TOKEN), mcpClient(hub, BETA_TOKEN)]);
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      expect((await alpha.listTools()).tools.map((tool) => tool.name)).to.include("agent_run");
      expect((await beta.listTools()).tools.map((tool) => tool.name)).to.not.include("agent_run");
    } finally {
      await Promise.all([alpha.close(), beta.close(), agent.close()]);
    }
  });

  it("a bad token is 401, a foreign Origin 403, and another token's session id 404", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    const post = (headers: Record<string, string>, body: object = initialize): Promise<Response> =>
      fetch(mcpUrl(hub), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(body),
      });
    expect((await post({ authorization: "Bearer wrong" })).status).to.equal(401);
    // An agent's key is not an orchestrator's token.
    expect((await post({ authorization: "Bearer mcp-agent-key" })).status).to.equal(401);
    expect((await post({})).status).to.equal(401);
    expect((await post({ authorization: `Bearer ${FULL_TOKEN}`, origin: "http://evil.example" })).status).to.equal(403);
    const opened = await post({ authorization: `Bearer ${ALPHA_TOKEN}` });
    expect(opened.status).to.equal(200);
    expect(opened.headers.get("mcp-protocol-version") ?? "2025-06-18").to.be.a("string");
    const sessionId = opened.headers.get("mcp-session-id") as string;
    expect(sessionId).to.be.a("string");
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const hijack = await post(
      { authorization: `Bearer ${BETA_TOKEN}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
      list,
    );
    expect(hijack.status).to.equal(404);
    const unknown = await post({ authorization: `Bearer ${ALPHA_TOKEN}`, "mcp-session-id": "not-a-session" }, list);
    expect(unknown.status).to.equal(404);
  });

  it("a session past MCP_SESSION_IDLE_MS is gone with its tabs: its id is 404", async () => {
    const watcher = await connect(hub, { token: FULL_TOKEN });
    const client = await mcpClient(hub, FULL_TOKEN);
    try {
      await watcher.call("events.subscribe", { topics: ["tabs"] });
      const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("index.html") });
      const closed = collect<{ target: string; reason: string }>(watcher, "tab.closed", {
        done: (all) => all.some((event) => event.target === target),
        timeoutMs: 15_000,
      });
      await closed;
      const again = await call(client, "tabs_list").catch((error: unknown) => error);
      expect(String(again)).to.match(/404|session/i);
    } finally {
      await client.close().catch(() => undefined);
      await watcher.close();
    }
  });
});

describe("tabwire mcp: MCP over stdio for clients that launch a command (real hub, real Chromium)", function () {
  this.timeout(60_000);
  const CLI = fileURLToPath(new URL("../../src/cli.js", import.meta.url));
  let site: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
  });
  after(async () => site?.close());

  /** The official SDK client launching `tabwire mcp` with `args`, its stderr kept. */
  async function launched(
    args: string[],
    env: Record<string, string> = {},
    cwd?: string,
  ): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", ...args],
      env: { ...cleanEnv(), ...env },
      stderr: "pipe",
      ...(cwd === undefined ? {} : { cwd }),
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const client = new Client({ name: "tabwire-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    return { client, stderr: () => stderr };
  }

  it("relays to the hub --hub names, with --token: the same tools, acting on a real page", async () => {
    const hub = await startTestHub({ HUB_TOKEN: FULL_TOKEN, AUTH_KEY: "mcp-agent-key" });
    const { client } = await launched(["--hub", hub.url, "--token", FULL_TOKEN]);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).to.include.members(["tabs_open", "snapshot", "click", "wait_for"]);
      await driveFormPage(client, site);
    } finally {
      await client.close();
      await hub.stop();
    }
  });

  it("--caps asks the hub for the tools beyond the default ones; an unknown group is refused naming the known ones", async () => {
    const hub = await startTestHub({ HUB_TOKEN: FULL_TOKEN, AUTH_KEY: "mcp-agent-key" });
    const plain = await launched(["--hub", hub.url, "--token", FULL_TOKEN]);
    const routing = await launched(["--hub", hub.url, "--token", FULL_TOKEN, "--caps", "routing"]);
    try {
      const names = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((tool) => tool.name);
      expect(await names(plain.client)).to.not.include.members(["network_route"]);
      expect(await names(routing.client))
        .to.include.members(["network_route", "network_unroute"])
        .and.not.include.members(["emulate"]);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "mcp", "--hub", hub.url, "--token", FULL_TOKEN, "--caps", "vision"],
        env: cleanEnv(),
        stderr: "pipe",
      });
      const refused = await new Client({ name: "tabwire-stdio-test", version: "1.0.0" }).connect(transport).then(
        () => null,
        (error: unknown) => error as Error,
      );
      expect(refused?.message).to.equal(
        'MCP error -32603: the tabwire hub refused the request (HTTP 400): no tools caps "vision" at /mcp; ask for emulation, routing, all (comma-separated)',
      );
      await transport.close();
    } finally {
      await Promise.all([plain.client.close(), routing.client.close()]);
      await hub.stop();
    }
  });

  it("with no hub named, relays to the hub at PORT of the .env in its folder instead of starting a second one", async () => {
    const hub = await startTestHub({ HUB_TOKEN: FULL_TOKEN, AUTH_KEY: "mcp-agent-key" });
    const folder = await mkdtemp(path.join(os.tmpdir(), "tabwire-mcp-env-"));
    await writeFile(path.join(folder, ".env"), `PORT=${new URL(hub.url).port}\nHUB_TOKEN=${FULL_TOKEN}\nLOG_LEVEL=info\n`);
    const { client, stderr } = await launched([], {}, folder);
    const orchestrator = await connect(hub, { token: FULL_TOKEN });
    try {
      const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("form.html") });
      const { tabs } = await orchestrator.call<{ tabs: { target: string }[] }>("tabs.list", {});
      expect(tabs.map((tab) => tab.target)).to.include(target);
      expect(stderr()).to.not.match(/tabwire is listening/);
    } finally {
      await client.close();
      await orchestrator.close();
      await hub.stop();
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("a hub that refuses the bridge's token answers with the refusal and what to pass, not 'could not be reached'", async () => {
    const hub = await startTestHub({ HUB_TOKEN: FULL_TOKEN, AUTH_KEY: "mcp-agent-key" });
    try {
      const refused = await launched(["--hub", hub.url, "--token", "not-the-hub-token"]).then(
        () => new Error("the MCP client connected with a wrong token"),
        (error: unknown) => error as Error,
      );
      expect(refused.message).to.match(/refused the token \(HTTP 401\).*--token T or TABWIRE_TOKEN/);
      expect(refused.message).to.not.match(/could not be reached/);
    } finally {
      await hub.stop();
    }
  });

  it("with no hub given or answering on the default address, starts one of its own on an embedded Chromium", async () => {
    const defaultAnswers = await fetch("http://127.0.0.1:8080/health", { signal: AbortSignal.timeout(1_000) }).then(
      (response) => response.ok,
      () => false,
    );
    const { client, stderr } = await launched([], { LOG_LEVEL: "info", LOG_DIR: path.join(os.tmpdir(), "tabwire-test-logs") });
    try {
      await driveFormPage(client, site);
      if (!defaultAnswers) expect(stderr()).to.match(/tabwire is listening.*ws:\/\/127\.0\.0\.1:(\d+)/);
      expect(stderr()).to.not.match(/ws:\/\/127\.0\.0\.1:8080\/rpc/);
    } finally {
      await client.close();
    }
  });
});

/** The test's environment without what would point the bridge at a hub or give it a token. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TABWIRE_URL|TABWIRE_TOKEN|HUB_TOKEN|HUB_TOKENS|PORT)$/.test(key)) env[key] = value;
  }
  return env;
}
