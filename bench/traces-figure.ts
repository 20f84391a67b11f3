import http from "node:http";
import type { AddressInfo } from "node:net";
import { answered } from "./compare.js";
import type { Figure } from "./figure.js";
import { startHubProcess, type HubProcess } from "./load.js";
import { cpuDuring } from "./process-cpu.js";
import { median, timeSequential } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

// Warm-up before measuring (a fresh process compiles its code first), then blocks alternated between the two hubs.
const WARMUP_CALLS = 2_000;
const BLOCK_CALLS = 200;

/**
 * What OpenTelemetry tracing costs a call: two hubs of the same build on the same Chrome, one exporting every span
 * (OTLP/HTTP, protobuf, to a local sink that only reads the requests), one with no endpoint (tracing off); the same
 * client calls evaluate("1+1") on each in alternated blocks. The CPU of each hub's process per call, and their ratio.
 * With BENCH_BEFORE_ROOT (a built checkout of the commit before tracing came in), a third hub runs from there, and the
 * figure of tracing off against that build tells what tracing costs a hub that does not use it.
 */
export async function tracesFigures(cdpUrl: string, rounds: number): Promise<Figure[]> {
  const sink = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const hubs: HubProcess[] = [];
  const callers: WsCaller[] = [];
  try {
    const off = await startHubProcess({ env: { CDP_URL: cdpUrl } });
    hubs.push(off);
    const on = await startHubProcess({ env: { CDP_URL: cdpUrl, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: "200" } });
    hubs.push(on);
    const beforeRoot = process.env.BENCH_BEFORE_ROOT;
    const before = beforeRoot ? await startHubProcess({ env: { CDP_URL: cdpUrl }, root: beforeRoot }) : null;
    if (before) hubs.push(before);
    const sides = await Promise.all(
      [off, on, ...(before ? [before] : [])].map(async (hub) => {
        const caller = await WsCaller.open(`${hub.url}/rpc`);
        callers.push(caller);
        const call = (method: string, params: object): Promise<Record<string, unknown>> =>
          answered(caller.send({ jsonrpc: "2.0", method, params }));
        const { target } = (await call("tabs.open", { url: "about:blank", background: true })).result as { target: string };
        const evaluate = async (): Promise<void> => void (await call("evaluate", { target, expression: "1+1" }));
        await timeSequential(WARMUP_CALLS, evaluate);
        return { pid: hub.pid, evaluate };
      }),
    );
    const cpu = { off: [] as number[], on: [] as number[], before: [] as number[] };
    for (let round = 0; round < rounds * 5; round++) {
      for (const [name, side] of [
        ["off", sides[0]],
        ["on", sides[1]],
        ["before", sides[2]],
      ] as const) {
        if (!side) continue;
        const nanos = await cpuDuring(side.pid, () => timeSequential(BLOCK_CALLS, side.evaluate));
        cpu[name].push(nanos / BLOCK_CALLS / 1000);
      }
    }
    const ratios = cpu.on.map((value, i) => value / (cpu.off[i] ?? value));
    return [
      ...(before ? [againstBefore(cpu, rounds)] : []),
      {
        name: `CPU per evaluate("1+1"): the hub exporting a span per call and per CDP command (OTLP/HTTP protobuf) / the same hub with tracing off (${rounds * 5} alternated blocks of ${BLOCK_CALLS})`,
        label: "CPU per evaluate, tracing on vs off",
        unit: "µs",
        goal: "(report)",
        hub: median(cpu.on),
        alternative: median(cpu.off),
        ratio: median(ratios),
      },
    ];
  } finally {
    await Promise.all(callers.map((caller) => caller.close()));
    await Promise.all(hubs.map((hub) => hub.stop()));
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}

// Tracing off in this build against the build before tracing came in: what a hub that does not trace pays for it.
function againstBefore(cpu: { off: number[]; before: number[] }, rounds: number): Figure {
  const ratios = cpu.before.map((value, i) => (cpu.off[i] ?? value) / value);
  return {
    name: `CPU per evaluate("1+1"): this build with tracing off / the build before tracing came in (BENCH_BEFORE_ROOT), ${rounds * 5} alternated blocks of ${BLOCK_CALLS}`,
    label: "CPU per evaluate, tracing off vs before tracing",
    unit: "µs",
    goal: "<= 1.02",
    hub: median(cpu.off),
    alternative: median(cpu.before),
    ratio: median(ratios),
  };
}
