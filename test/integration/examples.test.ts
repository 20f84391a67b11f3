import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { mcpClientOf, tabwireOnPath, type McpServerConfig } from "../support/installed-command.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { connect, startTestHub } from "../support/test-hub.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TOKEN = "examples-token";
const RUN_TIMEOUT_MS = 30_000;

/** Runs `node examples/<file>` from the clone as its header says, with the hub, token and page in the environment. */
async function runExample(file: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join("examples", file)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe("examples/, each run as its header says against a real hub with a token, on a page served on localhost", function () {
  this.timeout(60_000);
  let hub: Hub;
  let rpc: TestRpcClient;
  let site: FixtureServer;
  let env: Record<string, string>;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({ HUB_TOKEN: TOKEN, AUTH_KEY: "examples-agent-key" });
    rpc = await connect(hub, { token: TOKEN });
    env = { TABWIRE_URL: hub.url, TABWIRE_TOKEN: TOKEN, PAGE_URL: site.url("example-domain.html") };
  });
  after(async () => {
    await rpc?.close();
    await hub?.stop();
    await site?.close();
  });

  /** The tabs of the hub on the fixture site: an example closes what it opened. */
  const siteTabs = async (): Promise<string[]> => {
    const { tabs } = (await rpc.call("tabs.list")) as { tabs: { url: string }[] };
    return tabs.map((tab) => tab.url).filter((url) => url.startsWith(site.origin));
  };

  it("orchestrator.mjs: opens the page, prints its snapshot, clicks its link by ref and reads where it led", async () => {
    const run = await runExample("orchestrator.mjs", env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/- link "Learn more" \[ref=e\d+\]/);
    expect(run.stdout).to.include(`now on ${site.url("other.html")}: "Other Page"`);
    expect(await siteTabs()).to.deep.equal([]);
  });

  it("puppeteer.mjs: through /cdp with the token, opens the page, clicks its link and reads where it led", async () => {
    const run = await runExample("puppeteer.mjs", env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include(`opened ${site.url("example-domain.html")}: "Example Domain"`);
    expect(run.stdout).to.include(`now on ${site.url("other.html")}: "Other Page"`);
    expect(await siteTabs()).to.deep.equal([]);
  });

  it("orchestrator.mjs with a wrong token fails with the hub's refusal, not a hang", async () => {
    const run = await runExample("orchestrator.mjs", { ...env, TABWIRE_TOKEN: "not-the-token" });
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.match(/HubRefusedError: .*401/);
  });

  it("mcp.json: its command, launched from a folder outside the clone with the hub in its environment, lists the hub's tools and opens a tab", async () => {
    tabwireOnPath();
    const config = JSON.parse(await readFile(path.join(ROOT, "examples/mcp.json"), "utf8")) as {
      mcpServers: Record<string, McpServerConfig>;
    };
    const folder = await mkdtemp(path.join(os.tmpdir(), "tabwire-mcp-example-"));
    const direct = new Client({ name: "tabwire-examples-test", version: "1.0.0" });
    await direct.connect(
      new StreamableHTTPClientTransport(new URL(`${hub.url.replace(/^ws/, "http")}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const client = await mcpClientOf(config.mcpServers.tabwire!, { cwd: folder, env: { TABWIRE_URL: hub.url, TABWIRE_TOKEN: TOKEN } });
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(names).to.deep.equal((await direct.listTools()).tools.map((tool) => tool.name).sort());
      await client.callTool({ name: "tabs_open", arguments: { url: site.url("example-domain.html") } });
      expect(await siteTabs()).to.deep.equal([site.url("example-domain.html")]);
    } finally {
      await client.close();
      await direct.close();
    }
    expect(await readdir(folder)).to.deep.equal([]);
    await rm(folder, { recursive: true, force: true });
  });
});
