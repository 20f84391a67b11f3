import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { TabwireClient, type TabwireClientOptions } from "../../src/client/index.js";
import { parseConfig } from "../../src/config.js";
import { startHub, type Hub } from "../../src/hub.js";
import { configureLogging } from "../../src/log.js";
import { TestRpcClient, type ConnectOptions } from "./rpc-client.js";

/** Fails at once, with the install command, when the test machine has no Chromium. */
export function requireChromium(): void {
  if (process.env.CHROME_PATH || existsSync("/usr/bin/chromium")) return;
  throw new Error("Chromium is missing: install it with `sudo apt-get install -y chromium` (or run `npm run setup`)");
}

/**
 * Starts a real hub on a loopback port 0 with an embedded headless Chromium; `env` overrides settings. Unless `env`
 * names one, the hub has a DATA_DIR of its own (two hubs must not share one), removed when it stops. A hub with
 * tokens (HUB_TOKEN, HUB_TOKENS or ACCESS_FILE) refuses to start without an agent key (a ConfigError): give `AUTH_KEY`
 * with them, `startTestHub({ HUB_TOKENS: "token-a:alpha", AUTH_KEY: "test-agent-key" })`.
 */
export async function startTestHub(env: Record<string, string> = {}): Promise<Hub> {
  requireChromium();
  const ownDataDir = env.DATA_DIR === undefined ? await mkdtemp(path.join(os.tmpdir(), "tabwire-test-data-")) : null;
  const config = parseConfig({
    PORT: "0",
    LOG_LEVEL: "error",
    LOG_DIR: path.join(os.tmpdir(), "tabwire-test-logs"),
    ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}),
    ...(process.env.CHROME_PATH ? { CHROME_PATH: process.env.CHROME_PATH } : {}),
    ...env,
  });
  configureLogging(config);
  const removeDataDir = async (): Promise<void> => {
    if (ownDataDir) await rm(ownDataDir, { recursive: true, force: true });
  };
  const hub = await startHub(config).catch(async (error: unknown) => {
    await removeDataDir();
    throw error;
  });
  const stop = hub.stop;
  return Object.assign(hub, { stop: () => stop().finally(removeDataDir) });
}

let shared: Promise<Hub> | null = null;

/** One hub shared by the integration tests that need no special settings; stopped after the run. */
export function sharedHub(): Promise<Hub> {
  shared ??= startTestHub();
  return shared;
}

/** Stops the shared hub, if one was started. */
export async function stopSharedHub(): Promise<void> {
  if (!shared) return;
  const hub = await shared;
  shared = null;
  await hub.stop();
}

/** Connects a test client to a hub's /rpc; it checks every answer and notification against the OpenRPC document. */
export function connect(hub: Hub, options?: ConnectOptions): Promise<TestRpcClient> {
  return TestRpcClient.connect(hub.url, options);
}

/**
 * Connects the typed client (`tabwire/client`) to a hub's /rpc, to test what a user of the client sees; it checks no
 * answer against the document. It does not reconnect unless asked, so a dropped socket fails the test.
 */
export function connectClient(hub: Hub, options: Omit<TabwireClientOptions, "url"> = {}): Promise<TabwireClient> {
  return TabwireClient.connect({ url: hub.url, reconnect: false, ...options });
}
