import { expect } from "chai";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as ClassicClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as ClassicHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hub } from "../../src/hub.js";
import { collect } from "../support/collect.js";
import { call, driveFormPage, result } from "../support/mcp-tools.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { connect, startTestHub } from "../support/test-hub.js";

const REVISION = "2026-07-28";
const FULL_TOKEN = "mcp26-full-token";
const ALPHA_TOKEN = "mcp26-token-alpha";
const BETA_TOKEN = "mcp26-token-beta";

const mcpUrl = (hub: Hub, clientId?: string): URL =>
  new URL(`${hub.url.replace(/^ws/, "http")}/mcp${clientId === undefined ? "" : `?clientId=${clientId}`}`);

/** A client of the SDK's 2026 line pinned to the 2026-07-28 revision: no initialize, no session. */
async function modernClient(hub: Hub, token: string, clientId?: string): Promise<Client> {
  const client = new Client({ name: "tabwire-test-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: REVISION } } });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(hub, clientId), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

describe("MCP 2026-07-28 at /mcp: sessionless requests, each acting as the client its URL or token names (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL_TOKEN,
      HUB_TOKENS: `${ALPHA_TOKEN}:alpha,${BETA_TOKEN}:beta`,
      AUTH_KEY: "mcp26-agent-key",
      MCP_SESSION_IDLE_MS: "3000",
    });
  });
  after(async () => {
    await hub?.stop();
    await site?.close();
  });

  it("negotiates 2026-07-28 and lists the very tools, schemas and hints a 2025 session gets", async () => {
    const modern = await modernClient(hub, FULL_TOKEN);
    const classic = new ClassicClient({ name: "tabwire-test-2025", version: "1.0.0" });
    await classic.connect(new ClassicHttpTransport(mcpUrl(hub), { requestInit: { headers: { Authorization: `Bearer ${FULL_TOKEN}` } } }));
    try {
      expect(modern.getNegotiatedProtocolVersion()).to.equal(REVISION);
      const strip = (tools: { name: string; inputSchema: unknown; annotations?: unknown }[]): unknown[] =>
        tools.map(({ name, inputSchema, annotations }) => ({ name, inputSchema, annotations }));
      const [now, before] = await Promise.all([modern.listTools(), classic.listTools()]);
      expect(now.tools.length).to.be.greaterThan(20);
      expect(strip(now.tools)).to.deep.equal(strip(before.tools));
    } finally {
      await Promise.all([modern.close(), classic.close()]);
    }
  });

  it("opens a fixture page, snapshots it, clicks a ref, reads the result, takes a screenshot that is an image, counted in /metrics", async () => {
    const client = await modernClient(hub, FULL_TOKEN, "drive-26");
    try {
      const target = await driveFormPage(client, site);
      expect(target.startsWith("drive-26:")).to.equal(true);
      const image = (await call(client, "screenshot", { target })).content[0];
      expect(image).to.include({ type: "image", mimeType: "image/png" });
      expect(
        Buffer.from(image?.data ?? "", "base64")
          .subarray(1, 4)
          .toString("latin1"),
      ).to.equal("PNG");
      const metrics = await (await fetch(new URL("/metrics", mcpUrl(hub)), { headers: { authorization: `Bearer ${FULL_TOKEN}` } })).text();
      expect(Number(/^tabwire_connections\{kind="mcp"\} (\d+)$/m.exec(metrics)?.[1])).to.be.at.least(1);
    } finally {
      await client.close();
    }
  });

  it("two agents naming their own clients, 50 interleaved calls each, never see each other's tabs or cookies", async () => {
    const [one, two] = await Promise.all([modernClient(hub, FULL_TOKEN, "agent-one"), modernClient(hub, FULL_TOKEN, "agent-two")]);
    try {
      const work = async (client: Client, who: string): Promise<void> => {
        const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("index.html") });
        await result(client, "evaluate", { target, expression: `document.cookie = "who=${who}"` });
        for (let i = 0; i < 24; i++) {
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

  it("attacks: another named client, a scoped token naming another client, and a stranger get nothing", async () => {
    const [owner, other, alpha, beta] = await Promise.all([
      modernClient(hub, FULL_TOKEN),
      modernClient(hub, FULL_TOKEN, "someone-else"),
      modernClient(hub, ALPHA_TOKEN),
      modernClient(hub, BETA_TOKEN, "alpha"),
    ]);
    try {
      const { target } = await result<{ target: string }>(owner, "tabs_open", { url: site.url("index.html") });
      // The token's own client (no clientId) and a client named in the URL are two clients.
      expect((await result<{ tabs: unknown[] }>(other, "tabs_list")).tabs).to.deep.equal([]);
      const { target: alphaTab, clientId } = await result<{ target: string; clientId: string }>(alpha, "tabs_open", {
        url: site.url("form.html"),
      });
      expect(clientId).to.equal("alpha");
      // beta's token named alpha in its URL: it acts as beta, and alpha's tab is not there for it.
      expect((await result<{ tabs: unknown[] }>(beta, "tabs_list")).tabs).to.deep.equal([]);
      for (const [name, args] of [
        ["evaluate", { target: alphaTab, expression: "document.title" }],
        ["click", { target: alphaTab, selector: "button" }],
        ["fill", { target: alphaTab, selector: "input", value: "stolen" }],
        ["tabs_close", { target: alphaTab }],
      ] as const) {
        const answer = await call(beta, name, args);
        expect(answer.isError, name).to.equal(true);
        expect(answer.content[0]?.text, name).to.match(/^TARGET_NOT_FOUND/);
      }
      expect((await call(beta, "tabs_open", { url: site.url("form.html"), clientId: "alpha" })).isError).to.equal(true);
      const title = await result<{ value: string }>(alpha, "evaluate", { target: alphaTab, expression: "document.title" });
      expect(title.value).to.equal("Form Fixture");
      await result(owner, "tabs_close", { target });
    } finally {
      await Promise.all([owner.close(), other.close(), alpha.close(), beta.close()]);
    }
    const discover = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": REVISION } },
    };
    const post = (headers: Record<string, string>): Promise<Response> =>
      fetch(mcpUrl(hub), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": REVISION,
          ...headers,
        },
        body: JSON.stringify(discover),
      });
    expect((await post({})).status).to.equal(401);
    expect((await post({ authorization: "Bearer wrong" })).status).to.equal(401);
    expect((await post({ authorization: `Bearer ${FULL_TOKEN}`, origin: "http://evil.example" })).status).to.equal(403);
  });

  it("a client no request names for MCP_SESSION_IDLE_MS is gone with its tabs; naming it again starts it with none", async () => {
    const watcher = await connect(hub, { token: FULL_TOKEN });
    const client = await modernClient(hub, FULL_TOKEN, "idle-26");
    try {
      await watcher.call("events.subscribe", { topics: ["tabs"] });
      const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("index.html") });
      await collect<{ target: string }>(watcher, "tab.closed", {
        done: (all) => all.some((event) => event.target === target),
        timeoutMs: 15_000,
      });
      expect((await result<{ tabs: unknown[] }>(client, "tabs_list")).tabs).to.deep.equal([]);
    } finally {
      await client.close();
      await watcher.close();
    }
  });
});

describe("tabwire mcp over stdio for a 2026-07-28 client (real hub, real Chromium)", function () {
  this.timeout(60_000);
  const CLI = fileURLToPath(new URL("../../src/cli.js", import.meta.url));

  it("relays the sessionless revision to the hub --hub names and drives a real page", async () => {
    const hub = await startTestHub({ HUB_TOKEN: FULL_TOKEN, AUTH_KEY: "mcp26-agent-key" });
    const site = await startFixtureServer();
    const client = new Client({ name: "tabwire-stdio-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: REVISION } } });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, "mcp", "--hub", hub.url, "--token", FULL_TOKEN],
          stderr: "pipe",
        }),
      );
      expect(client.getNegotiatedProtocolVersion()).to.equal(REVISION);
      await driveFormPage(client, site);
    } finally {
      await client.close();
      await hub.stop();
      await site.close();
    }
  });
});
