import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const CHROME_DEVTOOLS_MCP = fileURLToPath(
  new URL("../../node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js", import.meta.url),
);
const PLAYWRIGHT_MCP = fileURLToPath(new URL("../../node_modules/@playwright/mcp/cli.js", import.meta.url));
const TOOL_TIMEOUT_MS = 30_000;

/** An MCP client of the official SDK, connected over `transport`. */
export async function connectMcp(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client({ name: "tabwire-bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** chrome-devtools-mcp on stdio, on the bench's Chromium, without its usage statistics or CrUX lookups. */
export function connectChromeDevtoolsMcp(cdpUrl: string): Promise<Client> {
  return connectMcp(
    new StdioClientTransport({
      command: process.execPath,
      args: [CHROME_DEVTOOLS_MCP, "--wsEndpoint", cdpUrl, "--no-usage-statistics", "--no-performance-crux"],
      stderr: "ignore",
    }),
  );
}

/**
 * @playwright/mcp on stdio, on the bench's Chromium, `--isolated`: a browser context (so a window) of its own, as
 * tabwire's session has, so that the other servers' tabs never hide its page (a hidden page draws no frames, and its
 * clicks wait for one). `close` ends it and removes its output folder.
 */
export async function connectPlaywrightMcp(cdpUrl: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const outputDir = await mkdtemp(path.join(os.tmpdir(), "tabwire-bench-playwright-mcp-"));
  const client = await connectMcp(
    new StdioClientTransport({
      command: process.execPath,
      args: [PLAYWRIGHT_MCP, "--cdp-endpoint", cdpUrl, "--isolated", "--output-dir", outputDir],
      stderr: "ignore",
    }),
  );
  const close = async (): Promise<void> => {
    await client.close();
    await rm(outputDir, { recursive: true, force: true });
  };
  return { client, close };
}

/** chrome-devtools-mcp's new_page: the id of the page it opened (the one its list marks selected). */
export async function newChromeDevtoolsPage(client: Client, url: string): Promise<number> {
  return selectedPageId(await toolText(client, "new_page", { url }));
}

/** The page chrome-devtools-mcp's list of pages (new_page's answer) marks selected. */
export function selectedPageId(pages: string): number {
  const pageId = Number(/^(\d+): .*\[selected\]$/m.exec(pages)?.[1]);
  if (!Number.isInteger(pageId)) throw new Error(`chrome-devtools-mcp new_page answered no selected page: ${pages.slice(0, 600)}`);
  return pageId;
}

/** A tool's text; a tool error (or no answer within 30 s) is thrown, so that it never passes for a fast answer. */
export async function toolText(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const answer = await client.callTool({ name, arguments: args }, undefined, { timeout: TOOL_TIMEOUT_MS }).catch((error: unknown) => {
    throw new Error(`${name} failed: ${String(error)}`);
  });
  const { content = [], isError } = answer as { content?: { type: string; text?: string }[]; isError?: boolean };
  const text = content.map((part) => part.text ?? "").join("\n");
  if (isError) throw new Error(`${name} answered an error: ${text.slice(0, 300)}`);
  return text;
}

/** The characters of a server's tools/list answer as JSON (every page of it, when the server pages it). */
export async function toolsListChars(client: Client): Promise<number> {
  const tools = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return JSON.stringify({ tools }).length;
}
