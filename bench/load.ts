import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { hubListening } from "./hub-listening.js";
import { inspectorUrlIn } from "./live-heap.js";
import { loadFigures } from "./load-figure.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HUB_START_TIMEOUT_MS = 30_000;
const HUB_STOP_TIMEOUT_MS = 15_000;
const MAX_STDERR_LINES = 1_000;

/** A hub started as a child process (`node dist/src/cli.js serve`), with its own embedded Chromium. */
export interface HubProcess {
  url: string;
  port: number;
  pid: number;
  /** `performance.now()` when the child was spawned: start-up figures count from there. */
  spawnedAt: number;
  /** Node's inspector of the hub process (loopback), when started with `inspect`; the soak reads the heap there. */
  inspectorUrl: string | null;
  child: ChildProcess;
  /** What it wrote to stderr (its log at LOG_LEVEL=warn, Node's warnings), line by line, the newest MAX_STDERR_LINES. */
  stderr: string[];
  /** SIGTERM, and waits for it to exit (SIGKILL past a deadline). */
  stop(): Promise<void>;
}

/** How to start a hub child: settings that override the defaults, whether to open Node's inspector, Node flags. */
export interface HubProcessOptions {
  env?: Record<string, string>;
  inspect?: boolean;
  nodeArgs?: readonly string[];
  /** The built checkout the hub runs from (default this one): another commit's build, for a before/after figure. */
  root?: string;
}

/** Starts a hub child on a loopback port 0 with no tokens (loopback peers only). */
export async function startHubProcess(options: HubProcessOptions = {}): Promise<HubProcess> {
  const { env = {}, inspect = false, nodeArgs = [], root = ROOT } = options;
  // A DATA_DIR of its own: two hubs must not share one (the clients' record, persistent clients, downloads).
  const dataDir = env.DATA_DIR === undefined ? await mkdtemp(path.join(os.tmpdir(), "tabwire-bench-data-")) : null;
  const child = spawn(process.execPath, [...nodeArgs, ...(inspect ? ["--inspect=127.0.0.1:0"] : []), "dist/src/cli.js", "serve"], {
    cwd: root,
    // Empty values win over a developer's .env: dotenv never overrides a variable that is set.
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      HUB_TOKEN: "",
      HUB_TOKENS: "",
      AUTH_KEY: "",
      CDP_URL: "",
      LOG_LEVEL: "warn",
      LOG_DIR: `${os.tmpdir()}/tabwire-bench-logs`,
      ...(dataDir ? { DATA_DIR: dataDir } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const spawnedAt = performance.now();
  const stderr: string[] = [];
  let partial = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    stderr.push(...lines);
    stderr.splice(0, Math.max(0, stderr.length - MAX_STDERR_LINES));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), HUB_STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await hubListening(child, HUB_START_TIMEOUT_MS);
    // Node prints the inspector's address before it runs the hub, so it is there once the hub listens.
    const inspectorUrl = inspectorUrlIn(stderr.join("\n"));
    if (inspect && !inspectorUrl) throw new Error("the hub's inspector did not say where it listens");
    return { url, port: Number(new URL(url).port), pid: child.pid ?? 0, spawnedAt, inspectorUrl, child, stderr, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts a hub child process (with its embedded Chromium), prints the load figures as a table, and stops it. */
async function main(): Promise<void> {
  const hub = await startHubProcess({ inspect: true });
  try {
    process.stdout.write(`tabwire load figures (${os.cpus().length} cores, Node ${process.version}; hub pid ${hub.pid} at ${hub.url})\n`);
    const figures = await loadFigures(hub.url, hub.pid, hub.inspectorUrl);
    const lines = [
      "| figure | value | unit |",
      "|---|---|---|",
      ...figures.map((f) => `| ${f.name} | ${Number.isInteger(f.value) ? f.value : f.value.toFixed(2)} | ${f.unit} |`),
    ];
    process.stdout.write(`\n${lines.join("\n")}\n`);
  } finally {
    await hub.stop();
  }
  process.stdout.write(hubStderrReport(hub));
}

/** What a hub child wrote to stderr, under a heading, for printing after a run; empty when it wrote nothing. */
export function hubStderrReport(hub: HubProcess): string {
  const printed = hub.stderr.filter((line) => line.trim() !== "");
  return printed.length === 0 ? "" : `\nthe hub's stderr:\n${printed.join("\n")}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
