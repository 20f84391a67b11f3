import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { hubListening } from "../../bench/hub-listening.js";
import { TabwireClient } from "../../src/client/index.js";
import { samplesOf } from "./metrics-text.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

/** The shared secret the test clusters sign their messages with. */
export const CLUSTER_SECRET = "cluster-secret-for-tests";
/** The agent key of the test clusters. */
export const AGENT_KEY = "agent-key-cluster";

/** One `tabwire serve` process of a cluster, with its own embedded Chromium in its own process group. */
export interface ClusterHub {
  id: string;
  url: string;
  child: ChildProcess;
  tmp: string;
  /** The last 64 KB it wrote to stderr (its log lines). */
  log(): string;
}

/** Starts one instance of a cluster on `redisUrl`; `env` adds or overrides settings (CLUSTER_SECRET and AUTH_KEY are set). */
export async function startClusterHub(id: string, redisUrl: string, env: Record<string, string> = {}): Promise<ClusterHub> {
  // Its own TMPDIR holds Chromium's profile, so even a killed instance leaves nothing behind once the test removes it.
  const tmp = mkdtempSync(path.join(os.tmpdir(), `tabwire-cluster-${id}-`));
  const settings = {
    ...process.env,
    PORT: "0",
    REDIS_URL: redisUrl,
    INSTANCE_ID: id,
    HUB_TOKEN: "",
    AUTH_KEY: AGENT_KEY,
    CLUSTER_SECRET,
    CDP_URL: "",
    LOG_LEVEL: "warn",
    LOG_DIR: path.join(tmp, "logs"),
    TMPDIR: tmp,
    ...env,
  };
  const child = spawn(process.execPath, ["dist/src/cli.js", "serve"], {
    cwd: ROOT,
    env: settings,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => (log = (log + chunk.toString()).slice(-65_536)));
  try {
    const url = await hubListening(child, START_TIMEOUT_MS, () => `hub ${id}: ${log}`);
    return { id, url, child, tmp, log: () => log };
  } catch (error) {
    killGroup(child, "SIGKILL");
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}

/** Starts instances in parallel; if one fails, the others are stopped and the first failure is thrown. */
export async function startClusterHubs(ids: readonly string[], redisUrl: string, env: Record<string, string> = {}): Promise<ClusterHub[]> {
  const started = await Promise.allSettled(ids.map((id) => startClusterHub(id, redisUrl, env)));
  const hubs = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failed = started.find((result) => result.status === "rejected");
  if (!failed) return hubs;
  await Promise.all(hubs.map(stopHub));
  throw failed.reason;
}

/** Whether the instance's process is still running. */
export function isRunning(hub: ClusterHub): boolean {
  return hub.child.exitCode === null && hub.child.signalCode === null;
}

/** SIGKILL to the hub and its Chromium at once: the instance dies with no goodbye. */
export async function killHub(hub: ClusterHub): Promise<void> {
  const exited = new Promise((resolve) => hub.child.once("exit", resolve));
  if (isRunning(hub)) killGroup(hub.child, "SIGKILL");
  await exited;
}

/** SIGTERM (a graceful stop that closes its Chromium), then whatever is left of its process group is killed. */
export async function stopHub(hub: ClusterHub): Promise<void> {
  if (isRunning(hub)) {
    const exited = new Promise((resolve) => hub.child.once("exit", resolve));
    hub.child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS)))]);
    clearTimeout(timer);
  }
  killGroup(hub.child, "SIGKILL");
  rmSync(hub.tmp, { recursive: true, force: true });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** The hub's HTTP base URL (http://host:port) from its ws:// one. */
export function httpUrl(hub: ClusterHub): string {
  return hub.url.replace("ws:", "http:");
}

/** The instance's tabwire_cluster_messages_dropped_total, by reason, read from its /metrics with `token`. */
export async function droppedMessages(hub: ClusterHub, token: string): Promise<Record<string, number>> {
  const response = await fetch(`${httpUrl(hub)}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET /metrics of ${hub.id} answered ${response.status}`);
  const counts: Record<string, number> = {};
  for (const sample of samplesOf(await response.text(), "tabwire_cluster_messages_dropped_total"))
    counts[sample.labels.reason ?? ""] = sample.value;
  return counts;
}

/** A test's instances by id and the typed clients it connects to them, closed together after the test. */
export class ClusterClients {
  #hubs: () => readonly ClusterHub[];
  #open: { close(): Promise<void> }[] = [];

  constructor(hubs: () => readonly ClusterHub[]) {
    this.#hubs = hubs;
  }

  /** The instance named `id`. */
  hub(id: string): ClusterHub {
    const found = this.#hubs().find((each) => each.id === id);
    if (!found) throw new Error(`no instance ${id} in this test's cluster`);
    return found;
  }

  /** A client connected to instance `id` with `token`, not reconnecting. */
  async connect(id: string, token: string): Promise<TabwireClient> {
    const connected = await TabwireClient.connect({ url: this.hub(id).url, token, reconnect: false });
    this.#open.push(connected);
    return connected;
  }

  /** Closes `closable` (an agent, a socket) with the clients after the test. */
  track<T extends { close(): Promise<void> }>(closable: T): T {
    this.#open.push(closable);
    return closable;
  }

  /** Closes every client it connected and everything it tracks. */
  async closeAll(): Promise<void> {
    await Promise.all(this.#open.splice(0).map((each) => each.close().catch(() => undefined)));
  }
}
