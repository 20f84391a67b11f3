import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { hubListening } from "../../bench/hub-listening.js";
import { inspectorUrlIn, liveHeapBytes } from "../../bench/live-heap.js";
import { WsCaller } from "../../bench/ws-caller.js";
import { requireChromium } from "./test-hub.js";

/** A hub in a child process (`tabwire serve`): its memory, log files and console output are its own to read. */
export interface ChildHub {
  url: string;
  port: number;
  /** The hub's process id. */
  pid: number;
  /** The folder the hub writes its log files to. */
  logDir: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** The hub process's resident set size now, in bytes. */
  rssBytes(): number;
  /**
   * The hub's V8 heap in use right after a full GC, in bytes: what it holds on to, whatever garbage the collector has
   * not reached yet (RSS counts that too, and how much depends on the machine). Needs `inspect: true`.
   */
  liveHeapBytes(): Promise<number>;
  /** Stops the hub (SIGTERM, SIGKILL after 10 s) and removes its folder unless the caller gave it. */
  stop(): Promise<void>;
  /** Sends the hub's process a signal (SIGTERM: the drain), as an operator or a process manager would. */
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the hub's process has exited, with its exit code or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const CLI = fileURLToPath(new URL("../../src/cli.js", import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** Where the hub runs and whether Node's inspector is open (loopback) so that `liveHeapBytes` can force a GC. */
export interface ChildHubOptions {
  dir?: string;
  inspect?: boolean;
}

/** Starts `tabwire serve` on a free port with `env` (LOG_LEVEL warn unless given), in `dir` or a folder of its own. */
export async function startChildHub(env: Record<string, string>, options: ChildHubOptions = {}): Promise<ChildHub> {
  const { dir, inspect = false } = options;
  requireChromium();
  const home = dir ?? (await mkdtemp(path.join(os.tmpdir(), "tabwire-child-")));
  const logDir = path.join(home, "logs");
  const base = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? home,
    ...(process.env.CHROME_PATH ? { CHROME_PATH: process.env.CHROME_PATH } : {}),
  };
  const child = spawn(process.execPath, [...(inspect ? ["--inspect=127.0.0.1:0"] : []), CLI, "serve"], {
    cwd: home,
    // A DATA_DIR of its own: two hubs must not share one (the clients' record, persistent clients, downloads).
    env: { ...base, PORT: "0", LOG_DIR: logDir, DATA_DIR: path.join(home, "data"), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const stop = async (): Promise<void> => {
    await stopChild(child);
    if (dir === undefined) await rm(home, { recursive: true, force: true });
  };
  try {
    const url = await hubListening(child, START_TIMEOUT_MS, () => output);
    const liveHeapBytes = (): Promise<number> => heapAfterGc(output);
    return {
      url,
      port: Number(new URL(url).port),
      pid: child.pid as number,
      logDir,
      output: () => output,
      rssBytes: () => residentBytes(child.pid as number),
      liveHeapBytes,
      stop,
      kill: (signal) => child.kill(signal),
      exited,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? NaN) * 1024;
}

/** Forces a full GC through the inspector whose address Node printed in `output`, then reads the heap in use. */
async function heapAfterGc(output: string): Promise<number> {
  const inspectorUrl = inspectorUrlIn(output);
  if (!inspectorUrl) throw new Error("start the hub with inspect: true to read its heap");
  const inspector = await WsCaller.open(inspectorUrl);
  try {
    return await liveHeapBytes(inspector);
  } finally {
    await inspector.close();
  }
}

/** What a hub that refused to start left: its exit code and everything it printed. */
export interface RefusedStart {
  code: number | null;
  output: string;
}

/** Starts `tabwire serve` with `env` (in `cwd`) and resolves once it exits; a hub that starts instead fails the test. */
export function startRefused(env: Record<string, string>, cwd?: string, timeoutMs = 15_000): Promise<RefusedStart> {
  const child = spawn(process.execPath, [CLI, "serve"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", PORT: "0", LOG_LEVEL: "error", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the hub did not exit within ${timeoutMs} ms: ${output.slice(-500)}`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
