import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { launchChromeWithPort, resolveChromePath } from "../src/cdp/chrome-launcher.js";
import { actionFigures } from "./actions-figure.js";
import { agentFigures } from "./agent-figure.js";
import { agentTaskFigures } from "./agent-task-figure.js";
import { auditFigure } from "./audit-figure.js";
import { writeChart } from "./chart.js";
import type { BenchContext } from "./compare.js";
import { cdpEndpointFigure } from "./cdp-endpoint-figure.js";
import { cliFigures } from "./cli-figure.js";
import { clusterFigures } from "./cluster-figure.js";
import { connectPerCommandFigure } from "./connect-per-command-figure.js";
import { consoleFigures } from "./console-figure.js";
import { contextFigures } from "./contexts-figure.js";
import { egressFigures } from "./egress-figure.js";
import { timelineFigures } from "./timeline-figure.js";
import { tracesFigures } from "./traces-figure.js";
import { engineFigure } from "./engine-figure.js";
import { evaluateFigure } from "./evaluate-figure.js";
import { goalBound, isGoalMet, type Figure } from "./figure.js";
import { hubStderrReport, startHubProcess, type HubProcess } from "./load.js";
import { asTableRows, LOAD_CONNECTIONS, loadFigures, type LoadFigure } from "./load-figure.js";
import { mcpFigures } from "./mcp-figure.js";
import { playwrightFigure } from "./playwright-figure.js";
import { puppeteerFigure } from "./puppeteer-figure.js";
import { restoreFigures } from "./restore-figure.js";
import { resumeFigures } from "./resume-figure.js";
import { hotPathFigures } from "./hot-path-figure.js";
import { baselineFigures } from "./baseline-figure.js";
import { liveViewFigures } from "./live-view-figure.js";
import { screenshotFigure } from "./screenshot-figure.js";
import { throughputFigure } from "./throughput-figure.js";
import { WsCaller } from "./ws-caller.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const REDIS_SERVER = "/usr/bin/redis-server";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS_PER_ROUND = Number(process.env.BENCH_CALLS ?? 500);
// A folder: the hub child writes a V8 CPU profile of the whole run there (open it in Chrome DevTools).
const HUB_CPU_PROFILE_DIR = process.env.BENCH_HUB_CPU_PROF;
// Part of a step's name: only the steps that have it run (while working on one figure); their table is printed, and
// bench/results.json and chart.png are left as the last whole run wrote them.
const ONLY = process.env.BENCH_ONLY;
// A built checkout of another commit: the baseline step holds this build's CPU per evaluate and MCP steps against that one's.
const BASELINE_ROOT = process.env.BENCH_BASELINE_ROOT;

/**
 * The load figures on a hub started for them alone, on the same Chromium, with its inspector: memory per connection
 * is then not hidden in heap that earlier figures grew and freed (on the bench's own hub it read 0.4-3 KB per agent),
 * and each memory read comes after a forced GC.
 */
async function loadOnFreshHub(cdpUrl: string): Promise<LoadFigure[]> {
  const hub = await startHubProcess({ inspect: true, env: { CDP_URL: cdpUrl } });
  try {
    return await loadFigures(hub.url, hub.pid, hub.inspectorUrl);
  } finally {
    await hub.stop();
  }
}

/** The figures in the order they run; each alternative library connects, measures and disconnects on its own. */
function steps(
  context: BenchContext,
  pids: { hub: number; chrome: number },
  hubUrl: string,
): Array<[string, () => Promise<Figure | Figure[]>]> {
  const { hub: hubPid, chrome: chromePid } = pids;
  return [
    ["evaluate vs raw CDP", () => evaluateFigure(context)],
    ["evaluate vs puppeteer-core", () => puppeteerFigure(context)],
    ["evaluate vs playwright-core", () => playwrightFigure(context)],
    ["cdp endpoint: puppeteer-core through /cdp against straight on Chrome", () => cdpEndpointFigure(context, hubUrl)],
    ["evaluate vs connect-per-command", () => connectPerCommandFigure(context)],
    ["CLI: CPU of tabwire --help and tabwire eval against node -e 0 and a minimal ws client", () => cliFigures(context, hubUrl, ROOT)],
    ["evaluate throughput", () => throughputFigure(context)],
    ["the hot path against a bare relay process", () => hotPathFigures(context, hubPid)],
    ["json-rpc-2.0: the JSON-RPC engine's share of the hub's CPU per evaluate", () => engineFigure(context)],
    ["baseline: CPU per evaluate and MCP steps against another commit's build (BENCH_BASELINE_ROOT)", () => baselineStep(context)],
    ["screenshot", () => screenshotFigure(context)],
    ["actions: snapshots and clicks against Playwright, chrome-devtools-mcp and puppeteer-core", () => actionFigures(context)],
    [
      "mcp: an agent's steps through tabwire's MCP front, @playwright/mcp and chrome-devtools-mcp",
      () => mcpFigures(context.cdpUrl, hubUrl),
    ],
    [
      "mcp task: an agent signs in, finds a product among 40, adds it to the cart and checks out, on each MCP server",
      () => agentTaskFigures(context.cdpUrl, hubUrl),
    ],
    ["console", () => consoleFigures(context)],
    ["audit.log: what a call that changes something pays for its line", () => auditFigure(context.rounds)],
    ["agent calls", () => agentFigures(context, hubUrl, ROOT)],
    ["dashboard live view: frames a second and a change to its frame on screen", () => liveViewFigures(context, hubUrl)],
    [
      "resume: a typed client back after a 2 s cut, and what a resumable session costs",
      () => resumeFigures(context.cdpUrl, context.rounds),
    ],
    [
      "restore: a persistent client with two tabs after a restart, against a fresh client's first tabs.open",
      () => restoreFigures(context.rounds),
    ],
    ["contexts: what a client's own browser context costs", () => contextFigures(context.cdpUrl, chromePid, context.rounds)],
    ["egress: a page load through a client's egress policy proxy, its CPU and memory", () => egressFigures(context.cdpUrl, context.rounds)],
    ["traces: what a span per call and per CDP command costs an evaluate", () => tracesFigures(context.cdpUrl, context.rounds)],
    [
      "timeline: what each tab's timeline costs an evaluate, and what pictures cost a click",
      () => timelineFigures(context.cdpUrl, context.rounds),
    ],
    [
      `load: ${LOAD_CONNECTIONS} orchestrators and ${LOAD_CONNECTIONS} idle agents`,
      async () => asTableRows(await loadOnFreshHub(context.cdpUrl)),
    ],
    [
      "cluster: a forwarded evaluate, and a resume through another instance",
      () =>
        existsSync(REDIS_SERVER)
          ? clusterFigures(context, ROOT)
          : skipped("cluster", `${REDIS_SERVER} is missing (npm run setup installs it)`),
    ],
  ];
}

/** The baseline figures when BENCH_BASELINE_ROOT names a built checkout of another commit; skipped otherwise. */
async function baselineStep(context: BenchContext): Promise<Figure[]> {
  if (!BASELINE_ROOT) return skipped("baseline", "BENCH_BASELINE_ROOT is unset (a built checkout of another commit)");
  return baselineFigures(context.cdpUrl, BASELINE_ROOT, { cpu: context.rounds, mcp: context.rounds * 4 });
}

function skipped(what: string, why: string): Promise<Figure[]> {
  process.stderr.write(`bench: ${what} figure skipped: ${why}\n`);
  return Promise.resolve([]);
}

async function main(): Promise<void> {
  // As a user starts the Chrome of CDP_URL for a hub that enforces egress policies (docs/security.md): with
  // --enable-automation Chrome shows the hub its command line, and the hub then sees WebRTC held to the proxy.
  const chrome = await launchChromeWithPort(resolveChromePath(process.env.CHROME_PATH ?? null), ["--enable-automation"]);
  let child: HubProcess | undefined;
  let hub: WsCaller | undefined;
  let raw: WsCaller | undefined;
  try {
    const profiling = HUB_CPU_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${HUB_CPU_PROFILE_DIR}`] : [];
    child = await startHubProcess({ env: { CDP_URL: chrome.wsUrl }, nodeArgs: profiling });
    hub = await WsCaller.open(`${child.url}/rpc`);
    raw = await WsCaller.open(chrome.wsUrl);
    const opened = (await hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: "about:blank" } })) as {
      result: { target: string; tabId: string };
    };
    const { target, tabId } = opened.result;
    const attached = (await raw.send({ method: "Target.attachToTarget", params: { targetId: tabId, flatten: true } })) as {
      result: { sessionId: string };
    };
    const context = {
      hub,
      raw,
      cdpUrl: chrome.wsUrl,
      target,
      tabId,
      sessionId: attached.result.sessionId,
      rounds: ROUNDS,
      calls: CALLS_PER_ROUND,
    };
    const figures: Figure[] = [];
    const chosen = steps(context, { hub: child.pid, chrome: chrome.process.pid ?? 0 }, child.url).filter(
      ([what]) => !ONLY || what.includes(ONLY),
    );
    for (const [what, step] of chosen) {
      const began = performance.now();
      figures.push(...[await step()].flat());
      process.stderr.write(`bench: ${what} measured in ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
    }
    const heading = report(figures);
    // A partial run (BENCH_ONLY) prints its figures; the results and the chart stay those of the last whole run.
    if (ONLY) return;
    writeResults(figures, heading);
    await writeChart(figures, heading, chrome.wsUrl);
  } finally {
    await hub?.close();
    await raw?.close();
    await child?.stop();
    if (child) process.stderr.write(hubStderrReport(child));
    await chrome.kill();
  }
}

function value(n: number, unit: string): string {
  if (!Number.isFinite(n)) return "-";
  return `${Number.isInteger(n) ? n : n.toFixed(3)} ${unit}`;
}

/** The ratio, or "-" for a figure that has no alternative (its goal, if any, is on its own value). */
function ratio(figure: Figure): string {
  return Number.isFinite(figure.alternative) ? `${figure.ratio.toFixed(2)}x` : "-";
}

/** The goal; one on the figure's own value (no alternative, so no ratio) carries its unit, e.g. `<= 10 KB`. */
function goal(figure: Figure): string {
  return Number.isFinite(figure.alternative) || goalBound(figure.goal) === null ? figure.goal : `${figure.goal} ${figure.unit}`;
}

function met(figure: Figure): string {
  const isMet = isGoalMet(figure);
  return isMet === null ? "-" : isMet ? "yes" : "no";
}

/** Prints the table and gives what the chart's heading needs. */
function report(figures: Figure[]): { machine: string; date: string; rounds: number } {
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  const machine = `${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
  const date = new Date().toISOString();
  const lines = [
    `tabwire bench (${ROUNDS} rounds x ${CALLS_PER_ROUND} calls, medians; load ${LOAD_CONNECTIONS} connections; ${machine})`,
    "",
    "| figure | tabwire | alternative | ratio | goal | met |",
    "|---|---|---|---|---|---|",
    ...figures.map(
      (f) => `| ${f.name} | ${value(f.hub, f.unit)} | ${value(f.alternative, f.unit)} | ${ratio(f)} | ${goal(f)} | ${met(f)} |`,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return { machine, date, rounds: ROUNDS };
}

/** Writes bench/results.json, from which bench/README.md's table and the chart are made. */
function writeResults(figures: Figure[], { machine, date }: { machine: string; date: string }): void {
  const rows = figures.map((f) => ({ ...f, met: met(f) }));
  mkdirSync(new URL("../../bench/", import.meta.url), { recursive: true });
  writeFileSync(
    new URL("../../bench/results.json", import.meta.url),
    `${JSON.stringify({ date, machine, rounds: ROUNDS, callsPerRound: CALLS_PER_ROUND, loadConnections: LOAD_CONNECTIONS, figures: rows }, null, 2)}\n`,
  );
}

await main();
