import { parseArgs } from "node:util";
import { SdkHttpError, StreamableHTTPClientTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { loadCliSettings } from "../config.js";

/** A hub the bridge started for itself; stopped when the bridge ends. */
export interface EmbeddedHub {
  url: string;
  stop(): Promise<void>;
}

const PROBE_TIMEOUT_MS = 1_000;

/**
 * `tabwire mcp`: MCP over stdio for clients that launch a command. It relays every frame to the /mcp front of a hub:
 * the one --hub or TABWIRE_URL names, else one answering at HOST:PORT (the hub's own settings, as `.env` gives them),
 * else a hub of its own it starts on an embedded Chromium on a free loopback port (stopped when stdin closes); `--caps`
 * asks the hub for tools beyond the default ones. Nothing but MCP frames goes to stdout.
 */
export async function runMcpBridge(args: string[], startEmbeddedHub: () => Promise<EmbeddedHub>): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { hub: { type: "string" }, token: { type: "string" }, caps: { type: "string" } },
    strict: true,
  });
  const settings = loadCliSettings();
  const named = values.hub ?? (settings.isHubNamed ? settings.hubUrl : undefined);
  const token = values.token ?? settings.token;
  let embedded: EmbeddedHub | null = null;
  let hubUrl = named ?? settings.hubUrl;
  if (named === undefined && !(await answers(hubUrl))) {
    embedded = await startEmbeddedHub();
    hubUrl = embedded.url;
  }
  const mcpUrl = new URL("/mcp", hubUrl.replace(/^ws/, "http"));
  // The hub answers an unknown group of tools with a 400 that names the known ones.
  if (values.caps !== undefined) mcpUrl.searchParams.set("caps", values.caps);
  await relay(mcpUrl, token);
  await embedded?.stop();
  return 0;
}

/** Pipes MCP frames between stdin/stdout and the hub's /mcp until either side closes. */
async function relay(url: URL, token: string | undefined): Promise<void> {
  const stdio = new StdioServerTransport();
  const http = new StreamableHTTPClientTransport(url, token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {});
  const ended = new Promise<void>((resolve) => {
    stdio.onclose = () => resolve();
    http.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
    // A client that stops the bridge with a signal still gets its session ended and an embedded hub stopped.
    process.once("SIGTERM", () => resolve());
    process.once("SIGINT", () => resolve());
  });
  stdio.onmessage = (message) => {
    http.send(message).catch((error: unknown) => answerFailure(stdio, message, error));
  };
  http.onmessage = (message) => {
    // The hub answers a 2025 initialize with the revision both speak; later requests must say it (a 2026-07-28
    // request says its revision itself, and the transport sends it on).
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === "string") http.setProtocolVersion(version);
    void stdio.send(message);
  };
  let closing = false;
  http.onerror = (error) => {
    if (!closing) process.stderr.write(`tabwire mcp: ${error.message}\n`);
  };
  await http.start();
  await stdio.start();
  await ended;
  closing = true;
  await Promise.allSettled([http.terminateSession(), http.close(), stdio.close()]);
}

/** A request the hub could not be asked gets an error answer, so the MCP client never waits on it. */
function answerFailure(stdio: StdioServerTransport, message: JSONRPCMessage, error: unknown): void {
  if (!("id" in message) || !("method" in message)) return;
  stdio.send({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: failureText(error) } }).catch(() => {});
}

/** Why a request did not reach the hub: a hub that refused it (a wrong or missing token: HTTP 401) is not one that is down. */
function failureText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (!(error instanceof SdkHttpError)) return `the tabwire hub could not be reached: ${text}`;
  let reason = text;
  try {
    const body = JSON.parse(String(error.data.text)) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") reason = body.error.message;
  } catch {
    // Not the hub's JSON: the transport's own message stands.
  }
  if (error.status === 401)
    return `the tabwire hub refused the token (HTTP 401): ${reason}; give tabwire mcp the hub's token with --token T or TABWIRE_TOKEN (environment or .env)`;
  return `the tabwire hub refused the request (HTTP ${error.status}): ${reason}`;
}

/** Whether a hub answers /health at `hubUrl`. */
async function answers(hubUrl: string): Promise<boolean> {
  try {
    const response = await fetch(new URL("/health", hubUrl.replace(/^ws/, "http")), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return response.ok;
  } catch {
    return false;
  }
}
