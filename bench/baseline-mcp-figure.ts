import type { Figure } from "./figure.js";
import { serveLargePage } from "./large-page.js";
import type { HubProcess } from "./load.js";
import { runSequence, STEPS, tabwireAgent, type McpAgent, type Step } from "./mcp-figure.js";
import { median } from "./stats.js";

// What this build's answer to a step may carry that an older build's does not: part of the step's time.
const CARRIES: Partial<Record<Step, string>> = {
  "load the page": "; this build's answer carries the page's snapshot (a build from before 2026-11-27 answers none)",
  "click a ref": "; this build's answer carries what the click changed (a build from before 2026-11-26 answers none)",
};

/**
 * An agent's MCP steps (load the 5,000-element page, snapshot every page, click a ref, snapshot again, screenshot) on
 * this build's hub and on another build's (`hubs`: this build first; see baseline-figure.ts), an agent in an MCP
 * session on each, rounds taking turns after a warm-up round. The figures the MCP step rows hold against the peers,
 * held against an older hub instead, whose numbers do not move with the peers' processes.
 */
export async function baselineMcpFigures(hubs: readonly HubProcess[], rounds: number): Promise<Figure[]> {
  const agents: McpAgent[] = [];
  const page = await serveLargePage();
  try {
    for (const hub of hubs) agents.push(await tabwireAgent(hub.url));
    const times = agents.map(() => Object.fromEntries(STEPS.map((step) => [step, [] as number[]])) as Record<Step, number[]>);
    for (let round = -1; round < rounds; round++) {
      for (let i = 0; i < agents.length; i++) {
        const side = (Math.max(round, 0) + i) % agents.length;
        const { ms } = await runSequence(agents[side]!, page.url);
        if (round >= 0) for (const step of STEPS) times[side]![step].push(ms[step]);
      }
    }
    const [now, then] = times as [Record<Step, number[]>, Record<Step, number[]>];
    return STEPS.map((step) => {
      const [hub, alternative] = [median(now[step]), median(then[step])];
      return {
        name: `MCP step "${step}" on a 5,000-element page: this build / the build of BENCH_BASELINE_ROOT, hub against hub (${rounds} rounds taking turns)${CARRIES[step] ?? ""}`,
        label: `MCP ${step} vs a baseline build`,
        unit: "ms",
        goal: "(report)",
        hub,
        alternative,
        ratio: hub / alternative,
      };
    });
  } finally {
    for (const agent of agents) await agent.close().catch(() => undefined);
    await page.close();
  }
}
