import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Figure } from "./figure.js";
import { startHubProcess, type HubProcess } from "./load.js";
import { alternatedEvaluateCpu, blockRatio, openEvaluateSide } from "./evaluate-cpu.js";
import { median } from "./stats.js";

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
  const closers: Array<() => Promise<void>> = [];
  try {
    const off = await startHubProcess({ env: { CDP_URL: cdpUrl } });
    hubs.push(off);
    const on = await startHubProcess({ env: { CDP_URL: cdpUrl, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: "200" } });
    hubs.push(on);
    const beforeRoot = process.env.BENCH_BEFORE_ROOT;
    const before = beforeRoot ? await startHubProcess({ env: { CDP_URL: cdpUrl }, root: beforeRoot }) : null;
    if (before) hubs.push(before);
    const sides = await Promise.all([off, on, ...(before ? [before] : [])].map(openEvaluateSide));
    closers.push(...sides.map((side) => side.close));
    const [offCpu = [], onCpu = [], beforeCpu = []] = await alternatedEvaluateCpu(sides, {
      blocks: rounds * 5,
      blockCalls: BLOCK_CALLS,
      warmupCalls: WARMUP_CALLS,
    });
    const cpu = { off: offCpu, on: onCpu, before: beforeCpu };
    return [
      ...(before ? [againstBefore(cpu, rounds)] : []),
      {
        name: `CPU per evaluate("1+1"): the hub exporting a span per call and per CDP command (OTLP/HTTP protobuf) / the same hub with tracing off (${rounds * 5} alternated blocks of ${BLOCK_CALLS})`,
        label: "CPU per evaluate, tracing on vs off",
        unit: "µs",
        goal: "(report)",
        hub: median(cpu.on),
        alternative: median(cpu.off),
        ratio: blockRatio(cpu.on, cpu.off),
      },
    ];
  } finally {
    await Promise.all(closers.map((close) => close()));
    await Promise.all(hubs.map((hub) => hub.stop()));
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}

// Tracing off in this build against the build before tracing came in: what a hub that does not trace pays for it.
function againstBefore(cpu: { off: number[]; before: number[] }, rounds: number): Figure {
  return {
    name: `CPU per evaluate("1+1"): this build with tracing off / the build before tracing came in (BENCH_BEFORE_ROOT), ${rounds * 5} alternated blocks of ${BLOCK_CALLS}`,
    label: "CPU per evaluate, tracing off vs before tracing",
    unit: "µs",
    goal: "<= 1.02",
    hub: median(cpu.off),
    alternative: median(cpu.before),
    ratio: blockRatio(cpu.off, cpu.before),
  };
}
