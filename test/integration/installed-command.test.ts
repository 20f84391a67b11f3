import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { mcpClientOf, tabwireOnPath, type McpServerConfig } from "../support/installed-command.js";
import { requireChromium } from "../support/test-hub.js";

const ROOT = new URL("../../../", import.meta.url);
const run = promisify(execFile);

/** The README's MCP config for clients that launch a command: the first `"command"` entry of its MCP section. */
async function readmeMcpConfig(): Promise<McpServerConfig> {
  const readme = await readFile(new URL("README.md", ROOT), "utf8");
  const section = readme.slice(readme.indexOf("## MCP"));
  const line = /^\{ "mcpServers".*"command".*$/m.exec(section)?.[0];
  if (line === undefined) throw new Error("the README's MCP section has no config with a command");
  const config = JSON.parse(line) as { mcpServers: Record<string, McpServerConfig> };
  return Object.values(config.mcpServers)[0]!;
}

describe("after npm run setup, the tabwire command works from any folder (the PATH's, as a user's shell and MCP client find it)", function () {
  this.timeout(60_000);
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "tabwire-elsewhere-"));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("tabwire --version, run from a folder outside the clone, prints package.json's version", async () => {
    const command = tabwireOnPath();
    const { version } = JSON.parse(await readFile(new URL("package.json", ROOT), "utf8")) as { version: string };
    const { stdout } = await run("tabwire", ["--version"], { cwd: folder });
    expect(stdout, command).to.equal(`${version}\n`);
  });

  it("the README's MCP config, launched from a folder outside the clone with an MCP client's environment, lists the tools and leaves the folder empty", async () => {
    requireChromium();
    tabwireOnPath();
    const server = await readmeMcpConfig();
    expect(server).to.deep.equal({ command: "tabwire", args: ["mcp"] });
    // No TABWIRE_URL: the command relays to a hub on the default address, or starts one of its own.
    const client = await mcpClientOf(server, { cwd: folder });
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).to.include.members(["tabs_open", "navigate", "snapshot", "click", "evaluate"]);
    } finally {
      await client.close();
    }
    expect(await readdir(folder)).to.deep.equal([]);
  });
});
