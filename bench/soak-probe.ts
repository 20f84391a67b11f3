import http from "node:http";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { chromeMemory } from "./chrome-memory.js";
import { liveHeapBytes } from "./live-heap.js";
import { openFds, rssKb } from "./load-figure.js";
import type { HubProcess } from "./load.js";
import { WsCaller } from "./ws-caller.js";

// After the load stops, the hub's side of closed sockets and closing tabs get this long to go (they take well under a
// second, abandoned clients CLIENT_ABANDON_MS and a quarter more; the rest is room for a slow, shared machine: the
// wait ends as soon as they are gone).
const DRAIN_DEADLINE_MS = 60_000;
// Chrome keeps a spare renderer ready, and starts or ends a utility process now and then: what "back to rest" allows.
const CHROME_SPARE_PROCESSES = 2;
const DRAIN_POLL_MS = 100;

/** The hub's state at one moment: its process, its tabs, and what its /metrics counts. */
export interface HubState {
  rssMb: number;
  /** V8 heap in use right after a full GC (forced through the inspector). */
  heapMb: number;
  fds: number;
  tabs: number;
  connections: number;
  cdpSessions: number;
  inflight: number;
  /** The embedded Chromium's processes and their PSS together (chrome-memory.ts). */
  chromeProcesses: number;
  chromePssMb: number;
  /** Folders under DATA_DIR/downloads: one per client with a context, none left by a client that went. */
  downloadFolders: number;
}

/** Reads the hub's state: tabs.list on an idle connection of its own, /metrics, /proc, and the heap through the inspector. */
export class HubProbe {
  #hub: HubProcess;
  #rpc: WsCaller;
  #inspector: WsCaller;
  #dataDir: string;

  private constructor(hub: HubProcess, callers: { rpc: WsCaller; inspector: WsCaller }, dataDir: string) {
    this.#hub = hub;
    this.#rpc = callers.rpc;
    this.#inspector = callers.inspector;
    this.#dataDir = dataDir;
  }

  /** Connects to a hub started with `inspect` and the DATA_DIR `dataDir`. */
  static async open(hub: HubProcess, dataDir: string): Promise<HubProbe> {
    if (!hub.inspectorUrl) throw new Error("start the hub with inspect: true to read its heap");
    const callers = { rpc: await WsCaller.open(`${hub.url}/rpc`), inspector: await WsCaller.open(hub.inspectorUrl) };
    return new HubProbe(hub, callers, dataDir);
  }

  /** The hub's state now; forces a full GC in the hub to read its live heap. */
  async state(): Promise<HubState> {
    const listed = await this.#rpc.send({ jsonrpc: "2.0", method: "tabs.list", params: {} });
    const tabs = ((listed.result as { tabs?: unknown[] } | undefined)?.tabs ?? []).length;
    const metrics = await scrapeMetrics(this.#hub.port);
    const heapBytes = await liveHeapBytes(this.#inspector);
    const { pid } = this.#hub;
    const chrome = chromeMemory(pid);
    const downloadFolders = await readdir(path.join(this.#dataDir, "downloads")).then(
      (names) => names.length,
      () => 0,
    );
    return {
      rssMb: rssKb(pid) / 1024,
      heapMb: heapBytes / 2 ** 20,
      fds: openFds(pid),
      tabs,
      // The probe's own connection is not load.
      connections:
        (metrics.get('tabwire_connections{kind="orchestrator"}') ?? 0) + (metrics.get('tabwire_connections{kind="agent"}') ?? 0) - 1,
      cdpSessions: metrics.get("tabwire_cdp_sessions") ?? NaN,
      inflight: metrics.get("tabwire_inflight_calls") ?? NaN,
      chromeProcesses: chrome.processes,
      chromePssMb: chrome.pssMb,
      downloadFolders,
    };
  }

  /** The state once fds, tabs, connections and calls are back to `rest` (or the drain deadline passed). */
  async drained(rest: HubState): Promise<HubState> {
    const deadline = Date.now() + DRAIN_DEADLINE_MS;
    for (;;) {
      const state = await this.state();
      const settled =
        state.fds <= rest.fds &&
        state.tabs <= rest.tabs &&
        state.connections <= rest.connections &&
        state.inflight === 0 &&
        state.downloadFolders <= rest.downloadFolders &&
        state.chromeProcesses <= rest.chromeProcesses + CHROME_SPARE_PROCESSES;
      if (settled || Date.now() > deadline) return state;
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
  }

  /** Closes both connections. */
  async close(): Promise<void> {
    await Promise.all([this.#rpc.close(), this.#inspector.close()]);
  }
}

/** GET /metrics on a fresh socket (no keep-alive, which would hold an fd of the hub open between samples). */
function scrapeMetrics(port: number): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/metrics", agent: false, timeout: 10_000 }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        const values = new Map<string, number>();
        for (const line of text.split("\n")) {
          const match = /^(\S+) (\S+)$/.exec(line);
          if (match?.[1] && match[2] && !line.startsWith("#")) values.set(match[1], Number(match[2]));
        }
        resolve(values);
      });
    });
    request.on("timeout", () => request.destroy(new Error("GET /metrics took over 10 s")));
    request.on("error", reject);
  });
}
