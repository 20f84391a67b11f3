import { readdirSync, readFileSync } from "node:fs";
import { answered } from "./compare.js";
import type { Figure } from "./figure.js";
import { liveHeapBytes } from "./live-heap.js";
import { startHubProcess } from "./load.js";
import { median } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

// Opens per side and round: each fresh client makes a browser context and its first renderer (a few hundred ms).
const OPENS_PER_ROUND = 8;
// Clients (or default-context tabs) held open at once for the memory figures.
const MEMORY_CLIENTS = 10;
// Chrome starts a renderer per new context's page and settles its memory a little after the page loads.
const SETTLE_MS = 1_500;

/**
 * What a client's own browser context costs, on a hub of its own (CLIENT_IDLE_MS=0, so a closed client's context goes
 * at once) and the bench's Chromium: tabs.open for a client that has no context yet (it makes one) against tabs.open
 * in the default client's context, rounds interleaved; and Chrome's memory (PSS of its processes) and the hub's live
 * heap per idle client with one blank tab, against one more blank tab of the default client.
 */
export async function contextFigures(cdpUrl: string, chromePid: number, rounds: number): Promise<Figure[]> {
  const child = await startHubProcess({ inspect: true, env: { CDP_URL: cdpUrl, CLIENT_IDLE_MS: "0" } });
  const hub = await WsCaller.open(`${child.url}/rpc`);
  const inspector = await WsCaller.open(child.inspectorUrl ?? "");
  try {
    const latency = await openLatencies(hub, rounds);
    const memory = await memoryPerClient(hub, inspector, chromePid);
    return [
      {
        name: "tabs.open about:blank: a client's first tab (a new browser context) / a tab in the default context",
        label: "tabs.open new client vs default",
        unit: "ms",
        goal: "(report)",
        ...latency,
      },
      {
        name: `Chrome memory (PSS) per idle client with one blank tab / per blank tab of the default client (${MEMORY_CLIENTS} of each)`,
        label: "Chrome MB per client vs per tab",
        unit: "MB",
        goal: "(report)",
        hub: memory.chromePerClient,
        alternative: memory.chromePerTab,
        ratio: memory.chromePerClient / memory.chromePerTab,
      },
      {
        name: `hub live heap per idle client with one blank tab (after a forced GC, ${MEMORY_CLIENTS} clients)`,
        label: "hub KB per idle client",
        unit: "KB",
        goal: "(report)",
        hub: memory.hubPerClientKb,
        alternative: Number.NaN,
        ratio: Number.NaN,
      },
    ];
  } finally {
    await Promise.all([hub.close(), inspector.close()]);
    await child.stop();
  }
}

async function openLatencies(hub: WsCaller, rounds: number): Promise<{ hub: number; alternative: number; ratio: number }> {
  const fresh: number[] = [];
  const plain: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const roundFresh: number[] = [];
    const roundPlain: number[] = [];
    for (let i = 0; i < OPENS_PER_ROUND; i++) {
      roundFresh.push(await timedOpen(hub, `bench-client-${round}-${i}`));
      roundPlain.push(await timedOpen(hub, undefined));
    }
    fresh.push(median(roundFresh));
    plain.push(median(roundPlain));
    ratios.push(median(roundFresh) / median(roundPlain));
  }
  return { hub: median(fresh), alternative: median(plain), ratio: median(ratios) };
}

/** Times one tabs.open (the close after it is not timed). */
async function timedOpen(hub: WsCaller, clientId: string | undefined): Promise<number> {
  const started = performance.now();
  const opened = await answered(
    hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: "about:blank", ...(clientId ? { clientId } : {}) } }),
  );
  const elapsed = performance.now() - started;
  const { target } = opened.result as { target: string };
  await answered(hub.send({ jsonrpc: "2.0", method: "tabs.close", params: { target } }));
  return elapsed;
}

async function memoryPerClient(
  hub: WsCaller,
  inspector: WsCaller,
  chromePid: number,
): Promise<{ chromePerClient: number; chromePerTab: number; hubPerClientKb: number }> {
  const hold = async (clientIds: (string | undefined)[]): Promise<{ chromeMb: number; heapBytes: number; targets: string[] }> => {
    const targets: string[] = [];
    for (const clientId of clientIds) {
      const opened = await answered(
        hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: "about:blank", ...(clientId ? { clientId } : {}) } }),
      );
      targets.push((opened.result as { target: string }).target);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { chromeMb: chromePssMb(chromePid), heapBytes: await liveHeapBytes(inspector), targets };
  };
  const release = async (targets: string[]): Promise<void> => {
    for (const target of targets) await answered(hub.send({ jsonrpc: "2.0", method: "tabs.close", params: { target } }));
  };
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const base = { chromeMb: chromePssMb(chromePid), heapBytes: await liveHeapBytes(inspector) };
  const clients = await hold(Array.from({ length: MEMORY_CLIENTS }, (_, i) => `bench-memory-${i}`));
  await release(clients.targets);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const between = chromePssMb(chromePid);
  const tabs = await hold(Array.from({ length: MEMORY_CLIENTS }, () => undefined));
  await release(tabs.targets);
  return {
    chromePerClient: (clients.chromeMb - base.chromeMb) / MEMORY_CLIENTS,
    chromePerTab: (tabs.chromeMb - between) / MEMORY_CLIENTS,
    hubPerClientKb: (clients.heapBytes - base.heapBytes) / MEMORY_CLIENTS / 1024,
  };
}

/** The proportional set size of a process and all its descendants (Chrome's browser, zygotes, renderers...), in MB. */
function chromePssMb(rootPid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // The process ended while the table was read.
    }
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parents) if (tree.has(parent) && !tree.has(pid)) grew = tree.add(pid) !== undefined;
  }
  let kb = 0;
  for (const pid of tree) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return kb / 1024;
}
