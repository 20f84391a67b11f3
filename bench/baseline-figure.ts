import { baselineMcpFigures } from "./baseline-mcp-figure.js";
import { alternatedEvaluateCpu, blockRatio, openEvaluateSide } from "./evaluate-cpu.js";
import type { Figure } from "./figure.js";
import { startHubProcess, type HubProcess } from "./load.js";
import { median } from "./stats.js";

const WARMUP_CALLS = 3_000;
const BLOCK_CALLS = 200;

/**
 * This build against another, hub against hub: `root` is a built checkout of another commit (BENCH_BASELINE_ROOT;
 * `git worktree add ../base <commit>`, then `npm ci && npm run build` there). Each runs a hub process of its own on
 * the bench's Chrome, started once for both figures: the CPU per evaluate, then an agent's MCP steps
 * (baseline-mcp-figure.ts), each for its number of rounds.
 */
export async function baselineFigures(cdpUrl: string, root: string, rounds: { cpu: number; mcp: number }): Promise<Figure[]> {
  const hubs: HubProcess[] = [];
  try {
    for (const options of [{ env: { CDP_URL: cdpUrl } }, { env: { CDP_URL: cdpUrl }, root }]) hubs.push(await startHubProcess(options));
    const cpu = await cpuFigure(hubs, rounds.cpu);
    return [cpu, ...(await baselineMcpFigures(hubs, rounds.mcp))];
  } finally {
    await Promise.all(hubs.map((hub) => hub.stop()));
  }
}

/**
 * The same client calls evaluate("1+1") on each hub in blocks that take turns: the CPU of each process per call, and
 * the median of the per-block ratios, a steadier figure of what the hub's own code came to cost than the hot path's
 * ratio to the relay, whose process moves with the machine.
 */
async function cpuFigure(hubs: readonly HubProcess[], rounds: number): Promise<Figure> {
  const sides = await Promise.all(hubs.map(openEvaluateSide));
  try {
    const blocks = rounds * 5;
    const [now = [], then = []] = await alternatedEvaluateCpu(sides, { blocks, blockCalls: BLOCK_CALLS, warmupCalls: WARMUP_CALLS });
    return {
      name: `CPU per evaluate("1+1"): this build / the build of BENCH_BASELINE_ROOT, hub against hub (${blocks} blocks of ${BLOCK_CALLS} taking turns, after ${WARMUP_CALLS} calls each)`,
      label: "CPU per evaluate vs a baseline build",
      unit: "µs",
      goal: "(report)",
      hub: median(now),
      alternative: median(then),
      ratio: blockRatio(now, then),
    };
  } finally {
    await Promise.all(sides.map((side) => side.close()));
  }
}
