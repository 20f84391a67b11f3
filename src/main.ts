import { fileURLToPath } from "node:url";
import { ConfigError, loadConfig, parseConfig } from "./config.js";
import { LaunchError } from "./cdp/chrome-launcher.js";
import { startHub, type Hub } from "./hub.js";
import { closeLogging, configureLogging, log } from "./log.js";

/** Starts the hub from the environment and stops it gracefully on SIGINT or SIGTERM. */
export async function serve(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`tabwire: bad configuration: ${error.message}\n`);
    process.exit(2);
  }
  configureLogging(config);
  let hub;
  try {
    hub = await startHub(config);
  } catch (error) {
    log.error(`cannot start: ${(error as Error).message}`);
    process.exitCode = error instanceof LaunchError ? 3 : 1;
    closeLogging();
    return;
  }
  process.stdout.write(`tabwire listening on ${hub.url}/rpc\n`);
  stopOnSignals(hub);
}

/**
 * SIGINT or SIGTERM drains the hub (new work refused, the calls in flight finish within DRAIN_TIMEOUT_MS), then
 * stops it; a second signal ends the drain at once, and one that comes after the drain exits at once.
 */
function stopOnSignals(hub: Hub): void {
  let stopping = false;
  let drained = false;
  const cutShort = new AbortController();
  const shutdown = (signal: string): void => {
    if (stopping && drained) return process.exit(1);
    if (stopping) {
      log.warn("a second signal: the drain ends now", { signal });
      return cutShort.abort();
    }
    stopping = true;
    log.info("shutting down", { signal });
    hub
      .drain(cutShort.signal)
      .then(() => {
        drained = true;
        return hub.stop();
      })
      .then(
        () => {
          closeLogging();
          process.exit(0);
        },
        (error: unknown) => {
          log.error("shutdown failed", { error: (error as Error).message });
          process.exit(1);
        },
      );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

/**
 * A hub of a command's own (`tabwire mcp`): the environment's settings, on a free loopback port, logs to stderr and
 * LOG_DIR (default: the package's logs/ folder).
 */
export async function startEmbeddedHub(): Promise<Hub> {
  loadConfig();
  // An MCP client starts the command in a folder of its choosing (the user's home, /): the logs stay out of it.
  const logDir = process.env.LOG_DIR || fileURLToPath(new URL("../../logs", import.meta.url));
  const config = parseConfig({ ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_DIR: logDir });
  configureLogging(config);
  return startHub(config);
}
