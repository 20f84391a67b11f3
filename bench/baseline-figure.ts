import { alternatedEvaluateCpu, blockRatio, openEvaluateSide } from "./evaluate-cpu.js";
import type { Figure } from "./figure.js";
import { startHubProcess, type HubProcess } from "./load.js";
import { median } from "./stats.js";

const WARMUP_CALLS = 3_000;
const BLOCK_CALLS = 200;

/**
 * This build against another, hub against hub: `root` is a built checkout of another commit (BENCH_BASELINE_ROOT;
 * `git worktree add ../base <commit>`, then `npm ci && npm run build` there). Each runs a hub process of its own on
 * the bench's Chrome, and the same client calls evaluate("1+1") on each in blocks that take turns. The CPU of each
 * process per call, and the median of the per-block ratios: a steadier figure of what the hub's own code came to cost
 * than the hot path's ratio to the relay, whose process moves with the machine.
 */
export async function baselineFigure(cdpUrl: string, root: string, rounds: number): Promise<Figure> {
  const hubs: HubProcess[] = [];
  const closers: Array<() => Promise<void>> = [];
  try {
    for (const options of [{ env: { CDP_URL: cdpUrl } }, { env: { CDP_URL: cdpUrl }, root }]) hubs.push(await startHubProcess(options));
    const sides = await Promise.all(hubs.map(openEvaluateSide));
    closers.push(...sides.map((side) => side.close));
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
    await Promise.all(closers.map((close) => close()));
    await Promise.all(hubs.map((hub) => hub.stop()));
  }
}
