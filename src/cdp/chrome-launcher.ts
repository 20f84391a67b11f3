import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { log } from "../log.js";
import { CdpConnection } from "./connection.js";
import { PipeTransport } from "./pipe-transport.js";

/** Where Debian puts its Chromium. */
export const DEFAULT_CHROME_PATH = "/usr/bin/chromium";
const LAUNCH_TIMEOUT_MS = 30_000;
const KILL_TIMEOUT_MS = 5_000;
const EXIT_WAIT_MS = 1_000;
// What Chrome last wrote on stderr is kept for the error of a launch that fails.
const STDERR_TAIL_CHARS = 8192;
// Tests lower the cap on Chrome's messages through this variable, to show an oversized answer without moving
// 256 MiB through the machine; it is not a user setting, hence not in Config.
const TEST_MAX_MESSAGE_BYTES = "TABWIRE_TEST_CDP_MAX_MESSAGE_BYTES";

/** Chrome could not be started; the message says how to fix it. */
export class LaunchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LaunchError";
  }
}

/** A running Chromium with a temporary profile. */
export interface LaunchedChrome {
  process: ChildProcess;
  /** Stops the process and removes its temporary profile. */
  kill(): Promise<void>;
}

/** The embedded Chrome: reached over its DevTools pipe only, and connected already. */
export interface PipedChrome extends LaunchedChrome {
  connection: CdpConnection;
}

/** A Chrome with a loopback debugging port, as a user runs one for CDP_URL (benchmarks and tests only). */
export interface PortChrome extends LaunchedChrome {
  wsUrl: string;
}

// The closed network here refuses Chrome's own background traffic; these flags keep it quiet and fast.
const FLAGS = [
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  // WebRTC sends UDP (STUN, media) straight from the browser, around a context's egress proxy: with this it uses
  // UDP only through a proxy that carries it (an HTTP proxy does not), so a policed page cannot reach a host that way.
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
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

/**
 * Starts the embedded headless Chromium with a fresh temporary profile, speaking CDP over its fds 3 and 4
 * (--remote-debugging-pipe): no TCP port that a page or a local process could reach, and a Chrome that exits
 * when the hub's process ends, as its pipe closes then.
 */
export async function launchChrome(binary: string, extraArgs: readonly string[]): Promise<PipedChrome> {
  if (extraArgs.some((arg) => arg.startsWith("--remote-debugging-port"))) {
    log.warn("CHROME_ARGS opens a debugging port: any local process and any page that reaches it can drive Chrome past the hub's rules");
  }
  const chrome = await spawnChrome(binary, ["--remote-debugging-pipe", ...extraArgs], { extraStdio: ["pipe", "pipe"] });
  const [toChrome, fromChrome] = [chrome.process.stdio[3], chrome.process.stdio[4]];
  if (!isWritable(toChrome) || !isReadable(fromChrome)) {
    await chrome.kill();
    throw new LaunchError("cannot open the DevTools pipe to Chrome");
  }
  const connection = new CdpConnection(new PipeTransport({ toChrome, fromChrome }, { maxMessageBytes: testMaxMessageBytes() }));
  try {
    await untilExitOrError(chrome, connection.send("Browser.getVersion", undefined, { timeoutMs: LAUNCH_TIMEOUT_MS }));
    return { process: chrome.process, kill: chrome.kill, connection };
  } catch (error) {
    connection.close();
    // A Chrome that dies at start closes its pipe a moment before its exit is seen: its exit says more.
    const exit = error instanceof LaunchError ? null : await exitWithin(chrome.process, EXIT_WAIT_MS);
    await chrome.kill();
    if (error instanceof LaunchError) throw error;
    if (exit !== null) throw new LaunchError(`Chrome exited (${exit}) before it was ready: ${chrome.stderr()}`);
    throw new LaunchError(`Chrome did not answer on its DevTools pipe: ${(error as Error).message}; its last output: ${chrome.stderr()}`);
  }
}

/**
 * Starts a headless Chromium with a loopback debugging port, as a user would run one to give the hub as CDP_URL;
 * `leaveOut` names switches of the embedded Chrome's that this one goes without (as a user's own Chrome may).
 */
export async function launchChromeWithPort(
  binary: string,
  extraArgs: readonly string[],
  leaveOut: readonly string[] = [],
): Promise<PortChrome> {
  const chrome = await spawnChrome(binary, ["--remote-debugging-port=0", ...extraArgs], { extraStdio: [], leaveOut });
  try {
    const match = await untilExitOrError(chrome, chrome.stderrMatch(/DevTools listening on (ws:\/\/\S+)/, LAUNCH_TIMEOUT_MS));
    return { process: chrome.process, kill: chrome.kill, wsUrl: match };
  } catch (error) {
    await chrome.kill();
    throw error;
  }
}

interface SpawnedChrome extends LaunchedChrome {
  /** The last of what Chrome wrote on stderr. */
  stderr(): string;
  /** Resolves with the first group of `pattern` once stderr shows it. */
  stderrMatch(pattern: RegExp, timeoutMs: number): Promise<string>;
}

async function spawnChrome(
  binary: string,
  mode: readonly string[],
  options: { extraStdio: readonly "pipe"[]; leaveOut?: readonly string[] },
): Promise<SpawnedChrome> {
  const { extraStdio, leaveOut = [] } = options;
  const profile = await mkdtemp(path.join(os.tmpdir(), "tabwire-chrome-"));
  const args = [...FLAGS.filter((flag) => !leaveOut.includes(flag)), `--user-data-dir=${profile}`, ...mode];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  args.push("about:blank");
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe", ...extraStdio] });
  // An 'error' with no listener would end the hub's process; the launch reports its own through untilExitOrError.
  child.on("error", (error) => log.warn("the Chrome process failed", { error: error.message }));
  let seen = "";
  // Always drained, so that a chatty Chrome never blocks on a full pipe.
  child.stderr?.on("data", (chunk: Buffer) => (seen = (seen + chunk.toString()).slice(-STDERR_TAIL_CHARS)));
  const stderrMatch = (pattern: RegExp, timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const onData = (): void => {
        const found = pattern.exec(seen)?.[1];
        if (found === undefined) return;
        clearTimeout(timer);
        child.stderr?.off("data", onData);
        resolve(found);
      };
      const timer = setTimeout(() => {
        child.stderr?.off("data", onData);
        reject(new LaunchError(`Chrome did not report its DevTools address within ${timeoutMs} ms`));
      }, timeoutMs);
      child.stderr?.on("data", onData);
      onData();
    });
  const stderr = (): string => seen.trim().slice(-500) || "(nothing on stderr)";
  return { process: child, kill: () => killChrome(child, profile), stderr, stderrMatch };
}

/** Waits on `ready`, failing with a LaunchError as soon as Chrome exits or cannot be started. */
function untilExitOrError<T>(chrome: SpawnedChrome, ready: Promise<T>): Promise<T> {
  const child = chrome.process;
  let stopWatching = (): void => {};
  const failed = new Promise<never>((_, reject) => {
    const onExit = (code: number | null, signal: string | null): void =>
      reject(new LaunchError(`Chrome exited (${code ?? signal}) before it was ready: ${chrome.stderr()}`));
    const onError = (error: Error): void => reject(new LaunchError(`cannot start Chrome: ${error.message}`));
    child.once("exit", onExit);
    child.once("error", onError);
    stopWatching = () => {
      child.off("exit", onExit);
      child.off("error", onError);
    };
  });
  return Promise.race([ready, failed]).finally(stopWatching);
}

/** How the process ended (its code or signal) if it does within `timeoutMs`, else null. */
function exitWithin(child: ChildProcess, timeoutMs: number): Promise<string | null> {
  const ended = (): string | null => (child.exitCode ?? child.signalCode)?.toString() ?? null;
  if (ended() !== null) return Promise.resolve(ended());
  return new Promise((resolve) => {
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(ended());
    };
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(null);
    }, timeoutMs);
    child.once("exit", onExit);
  });
}

function testMaxMessageBytes(): number | undefined {
  const bytes = Number(process.env[TEST_MAX_MESSAGE_BYTES]);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

// Node hands extra stdio pipes over as sockets (Duplex), which count as both.
function isWritable(stream: unknown): stream is Writable {
  return stream instanceof Writable;
}

function isReadable(stream: unknown): stream is Readable {
  return stream instanceof Readable;
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
