import { readFileSync } from "node:fs";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { tabwire } from "../support/cli.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { request } from "../support/http-request.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab } from "../support/tabs.js";
import { connect, sharedHub } from "../support/test-hub.js";

const read = (file: string): string => readFileSync(new URL(`../../../${file}`, import.meta.url), "utf8");
const PRODUCT_VERSION = (JSON.parse(read("package.json")) as { version: string }).version;
const PROTOCOL_VERSION = (JSON.parse(read("protocol/tabwire.openrpc.json")) as { info: { version: string } }).info.version;

describe("one version everywhere: package.json's, and the protocol's for agents (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let rpc: TestRpcClient;
  let site: FixtureServer;

  before(async () => {
    hub = await sharedHub();
    rpc = await connect(hub);
    site = await startFixtureServer();
  });
  after(async () => {
    await rpc.close();
    await site.close();
  });

  it("tabwire --version and /status say package.json's version", async () => {
    const run = await tabwire(["--version"], hub.url);
    expect(run.stdout).to.equal(`${PRODUCT_VERSION}\n`);
    const status = await request(hub.port, "GET /status");
    expect(status.status).to.equal(200);
    expect((status.body.server as { version?: unknown }).version).to.equal(PRODUCT_VERSION);
  });

  it("the MCP server info says package.json's version", async () => {
    const client = new Client({ name: "tabwire-version-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url.replace(/^ws/, "http")}/mcp`)));
    try {
      expect(client.getServerVersion()).to.include({ name: "tabwire", version: PRODUCT_VERSION });
    } finally {
      await client.close();
    }
  });

  it("a HAR file's creator is tabwire at package.json's version", async () => {
    const tab = await openTab(rpc, site.url("example.html"));
    try {
      const har = (await rpc.call("network.har", { target: tab.target })) as { log: { creator: { name: string; version: string } } };
      expect(har.log.creator).to.deep.equal({ name: "tabwire", version: PRODUCT_VERSION });
    } finally {
      await closeTab(rpc, tab.target);
    }
  });

  it("an agent's welcome says the protocol's version (docs/protocol.md section 6), the OpenRPC document's", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: "version-agent" });
    try {
      expect(agent.welcome.version).to.equal(PROTOCOL_VERSION);
      expect(PROTOCOL_VERSION).to.equal("1.0.0");
    } finally {
      await agent.close();
    }
  });
});
