import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli.js");

/** An MCP config's server entry, as a client such as Claude or Cursor reads it. */
export interface McpServerConfig {
  command: string;
  args: string[];
}

/**
 * The `tabwire` command the PATH finds, as a shell would, checked to be this checkout's (`npm run setup` put it
 * there); throws with the command that does it otherwise.
 */
export function tabwireOnPath(): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, "tabwire");
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const real = realpathSync(candidate);
    if (real === CLI) return candidate;
    throw new Error(`the PATH's tabwire is ${candidate} -> ${real}, not this checkout's: run bash scripts/link-cli.sh here`);
  }
  throw new Error("tabwire is not on the PATH: npm run setup puts it there (in a checkout already set up: bash scripts/link-cli.sh)");
}

/**
 * An MCP client of the official SDK that launches a config's command with its args from `cwd`, as an MCP client
 * does: the SDK's default environment (PATH, HOME, ...) plus `env`.
 */
export async function mcpClientOf(server: McpServerConfig, options: { cwd: string; env?: Record<string, string> }): Promise<Client> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    cwd: options.cwd,
    env: { ...getDefaultEnvironment(), ...options.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "tabwire-config-test", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${server.command} ${server.args.join(" ")} did not speak MCP: ${(error as Error).message}\n${stderr}`);
  }
  return client;
}
