import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Parses a line the CLI printed. */
export const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

/** What a finished command printed and how it ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `tabwire <args>` as a user would, against `hubUrl`, with optional piped stdin. */
export function tabwire(args: string[], hubUrl: string, stdin?: string): Promise<Run> {
  return runCli(args, { hubUrl, stdin });
}

/**
 * Runs `tabwire <args>` as a user would in folder `cwd`, finding the hub as it finds it there (`.env`, `env`): no
 * TABWIRE_URL, HOST, PORT or token from the test's own environment.
 */
export function tabwireIn(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Run> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(TABWIRE_URL|TABWIRE_TOKEN|HUB_TOKEN|HUB_TOKENS|HOST|PORT)$/.test(name)),
  ) as Record<string, string>;
  return runCli(args, { cwd: options.cwd, baseEnv: { ...env, ...options.env } });
}

/**
 * Runs `tabwire <args>` against `hubUrl` and lists what the process loaded: the project's files as paths from the
 * root (`dist/src/cli.js`), the packages by name (`ws`), and Node's own modules (`node:fs`).
 */
export async function tabwireLoading(args: string[], hubUrl: string): Promise<{ run: Run; loaded: string[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-loads-"));
  const trace = path.join(dir, "loaded.txt");
  try {
    const run = await runCli(args, { hubUrl, nodeArgs: ["--import", TRACE_HOOK], env: { LOAD_TRACE_FILE: trace } });
    const urls = (await readFile(trace, "utf8")).split("\n").filter(Boolean);
    return { run, loaded: [...new Set(urls.map(nameOf))] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const TRACE_HOOK = new URL("./load-trace.js", import.meta.url).href;

function nameOf(url: string): string {
  if (!url.startsWith("file:")) return url;
  const file = path.relative(ROOT, fileURLToPath(url)).split(path.sep).join("/");
  const inPackage = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  return inPackage?.[1] ?? file;
}

interface CliRun {
  hubUrl?: string;
  stdin?: string;
  nodeArgs?: string[];
  env?: Record<string, string>;
  /** The folder it runs in (default the project's root) and, with it, the whole environment it gets. */
  cwd?: string;
  baseEnv?: Record<string, string>;
}

function runCli(args: string[], options: CliRun): Promise<Run> {
  const started = Date.now();
  const env = options.baseEnv ?? { ...process.env, TABWIRE_URL: options.hubUrl, TABWIRE_TOKEN: "", HUB_TOKEN: "", ...options.env };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), path.join(ROOT, "dist/src/cli.js"), ...args], {
    cwd: options.cwd ?? ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.stdin ?? "");
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
}

/** Starts a long-running `tabwire <args>` (console --follow) and resolves with its first stdout line that matches. */
export function firstLineMatching(args: string[], hubUrl: string, match: RegExp): { line: Promise<string>; stop: () => void } {
  const timeoutMs = 15_000;
  const child = spawn(process.execPath, ["dist/src/cli.js", ...args], {
    cwd: ROOT,
    env: { ...process.env, TABWIRE_URL: hubUrl, TABWIRE_TOKEN: "", HUB_TOKEN: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no line matching ${String(match)} within ${timeoutMs} ms: ${seen}`)), timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const found = seen.split("\n").find((candidate) => match.test(candidate));
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
  return { line, stop: () => child.kill("SIGINT") };
}
