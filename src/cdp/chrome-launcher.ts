import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { log } from "../log.js";

/** Where Debian puts its Chromium. */
export const DEFAULT_CHROME_PATH = "/usr/bin/chromium";
const LAUNCH_TIMEOUT_MS = 30_000;
const KILL_TIMEOUT_MS = 5_000;

/** Chrome could not be started; the message says how to fix it. */
export class LaunchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LaunchError";
  }
}

/** A running embedded Chromium and how to reach it. */
export interface LaunchedChrome {
  process: ChildProcess;
  wsUrl: string;
  /** Stops the process and removes its temporary profile. */
  kill(): Promise<void>;
}

// The closed network here refuses Chrome's own background traffic; these flags keep it quiet and fast.
const FLAGS = [
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--disable-background-timer-throttling",
  "--disable-backgrounding-occluded-windows",
  "--disable-renderer-backgrounding",
  "--disable-features=Translate,MediaRouter,OptimizationHints",
  "--metrics-recording-only",
  "--mute-audio",
  "--password-store=basic",
  "--use-mock-keychain",
  "--remote-debugging-port=0",
];

/** Picks the Chrome binary: CHROME_PATH, else Debian's chromium, else a clear error naming the install command. */
export function resolveChromePath(configured: string | null): string {
  if (configured) {
    if (!existsSync(configured)) throw new LaunchError(`CHROME_PATH=${configured} does not exist`);
    return configured;
  }
  if (existsSync(DEFAULT_CHROME_PATH)) return DEFAULT_CHROME_PATH;
  throw new LaunchError(
    `no Chrome found at ${DEFAULT_CHROME_PATH}; install it with "sudo apt-get install -y chromium" (or run npm run setup), or set CHROME_PATH or CDP_URL`,
  );
}

/** Starts a headless Chromium with a fresh temporary profile and waits for its DevTools address. */
export async function launchChrome(binary: string, extraArgs: readonly string[]): Promise<LaunchedChrome> {
  const profile = await mkdtemp(path.join(os.tmpdir(), "tabwire-chrome-"));
  const args = [...FLAGS, `--user-data-dir=${profile}`, ...extraArgs];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  args.push("about:blank");
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  const kill = (): Promise<void> => killChrome(child, profile);
  try {
    const wsUrl = await waitForDevToolsUrl(child);
    return { process: child, wsUrl, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}

function waitForDevToolsUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const finish = (error: Error | null, url?: string): void => {
      clearTimeout(timer);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      child.off("error", onError);
      // Keep draining stderr so a chatty Chrome never blocks on a full pipe.
      child.stderr?.resume();
      if (error) reject(error);
      else resolve(url ?? "");
    };
    const onData = (chunk: Buffer): void => {
      seen = (seen + chunk.toString()).slice(-8192);
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match?.[1]) finish(null, match[1]);
    };
    const onExit = (code: number | null): void =>
      finish(new LaunchError(`Chrome exited with code ${code} before it was ready: ${seen.trim().slice(-500)}`));
    const onError = (error: Error): void => finish(new LaunchError(`cannot start Chrome: ${error.message}`));
    const timer = setTimeout(
      () => finish(new LaunchError(`Chrome did not report its DevTools address within ${LAUNCH_TIMEOUT_MS} ms`)),
      LAUNCH_TIMEOUT_MS,
    );
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
    child.once("error", onError);
  });
}

async function killChrome(child: ChildProcess, profile: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), KILL_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  await rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch((error: Error) =>
    log.warn("cannot remove the Chrome profile", { error: error.message }),
  );
}
