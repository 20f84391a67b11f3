import { answered } from "./compare.js";
import type { Figure } from "./figure.js";
import { serveLargePage } from "./large-page.js";
import { liveHeapBytes } from "./live-heap.js";
import { startHubProcess } from "./load.js";
import { cpuDuring } from "./process-cpu.js";
import { median } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

// Loads per side and round, alternated: the policed client's tab, then the plain client's.
const LOADS_PER_ROUND = 10;
// Policed clients held at once for the memory figure, each with one blank tab.
const MEMORY_CLIENTS = 10;
const SETTLE_MS = 1_500;
const POLICY = { egress: { allow: ["bench.test"] } };

/**
 * What an egress policy costs, on a hub of its own (EGRESS_HOSTS maps bench.test to loopback): navigate to the
 * 5,000-element page in a policed client's tab (through its egress proxy) against the same page in a plain client's
 * tab, rounds interleaved; the hub's CPU per proxied request (the policed loads' CPU less the plain loads', over the
 * requests the page server saw); the hub's live heap per idle policed client with one blank tab (its proxy included).
 */
export async function egressFigures(cdpUrl: string, rounds: number): Promise<Figure[]> {
  const page = await serveLargePage();
  const child = await startHubProcess({ inspect: true, env: { CDP_URL: cdpUrl, EGRESS_HOSTS: "bench.test=127.0.0.1" } });
  const hub = await WsCaller.open(`${child.url}/rpc`);
  const inspector = await WsCaller.open(child.inspectorUrl ?? "");
  const call = (method: string, params: object): Promise<Record<string, unknown>> => answered(hub.send({ jsonrpc: "2.0", method, params }));
  try {
    const plainUrl = page.url;
    const policedUrl = page.url.replace("127.0.0.1", "bench.test");
    await call("clients.configure", { clientId: "bench-policed", policy: POLICY });
    const policed = await targetOf(call("tabs.open", { clientId: "bench-policed", url: policedUrl }));
    const plain = await targetOf(call("tabs.open", { clientId: "bench-plain", url: plainUrl }));
    const load = { policed: [] as number[], plain: [] as number[], ratios: [] as number[], cpuPoliced: 0, cpuPlain: 0 };
    for (let round = 0; round < rounds; round++) {
      const times = { policed: [] as number[], plain: [] as number[] };
      for (let i = 0; i < LOADS_PER_ROUND; i++) {
        load.cpuPoliced += await cpuDuring(child.pid, async () => times.policed.push(await timedLoad(call, policed, policedUrl)));
        load.cpuPlain += await cpuDuring(child.pid, async () => times.plain.push(await timedLoad(call, plain, plainUrl)));
      }
      load.policed.push(median(times.policed));
      load.plain.push(median(times.plain));
      load.ratios.push(median(times.policed) / median(times.plain));
    }
    const loads = rounds * LOADS_PER_ROUND;
    const heapKb = await heapPerPolicedClient(call, inspector, policedUrl);
    return [
      {
        name: "navigate to the 5,000-element page: a policed client's tab (through its egress proxy) / a plain client's tab",
        label: "egress proxy page load",
        unit: "ms",
        goal: "<= 1.15",
        hub: median(load.policed),
        alternative: median(load.plain),
        ratio: median(load.ratios),
      },
      {
        name: "hub CPU per page load through the egress proxy, less the same load without it (one document request each)",
        label: "egress proxy CPU per request",
        unit: "µs",
        goal: "(report)",
        hub: (load.cpuPoliced - load.cpuPlain) / loads / 1_000,
        alternative: Number.NaN,
        ratio: Number.NaN,
      },
      {
        name: `hub live heap per idle policed client with one blank tab, its proxy included (after a forced GC, ${MEMORY_CLIENTS} clients)`,
        label: "hub KB per policed client",
        unit: "KB",
        goal: "(report)",
        hub: heapKb,
        alternative: Number.NaN,
        ratio: Number.NaN,
      },
    ];
  } finally {
    await Promise.all([hub.close(), inspector.close()]);
    await child.stop();
    await page.close();
  }
}

type Call = (method: string, params: object) => Promise<Record<string, unknown>>;

async function targetOf(opened: Promise<Record<string, unknown>>): Promise<string> {
  return ((await opened).result as { target: string }).target;
}

async function timedLoad(call: Call, target: string, url: string): Promise<number> {
  const started = performance.now();
  await call("navigate", { target, url });
  return performance.now() - started;
}

async function heapPerPolicedClient(call: Call, inspector: WsCaller, url: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const base = await liveHeapBytes(inspector);
  const targets: string[] = [];
  for (let i = 0; i < MEMORY_CLIENTS; i++) {
    const clientId = `bench-policed-memory-${i}`;
    await call("clients.configure", { clientId, policy: POLICY });
    targets.push(await targetOf(call("tabs.open", { clientId, url })));
    await call("navigate", { target: targets[i], url: "about:blank" });
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const held = await liveHeapBytes(inspector);
  for (const target of targets) await call("tabs.close", { target });
  return (held - base) / MEMORY_CLIENTS / 1024;
}
