import { spawn } from "node:child_process";
import type { BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { reapedChildrenCpuSeconds } from "./process-cpu.js";
import { median } from "./stats.js";

// Samples of each command, interleaved; a sample is the mean of a few runs back to back, because the CPU a process
// can read of its children moves in 10 ms steps.
const SAMPLES = 9;
const RUNS_PER_SAMPLE = 3;
const RUN_TIMEOUT_MS = 30_000;
// The goal: what `tabwire --help` and `tabwire eval` against a running hub may cost in CPU, start to exit.
const CPU_GOAL_SECONDS = 0.35;

// The least a script can do to make the same call: ws, one request, print the answer, close.
const WS_CLIENT = `
const WebSocket = require("ws");
const [url, target] = process.argv.slice(1);
const ws = new WebSocket(url + "/rpc", { perMessageDeflate: false });
ws.on("open", () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evaluate", params: { target, expression: "1+1" } })));
ws.on("message", (data) => { process.stdout.write(data + "\\n"); ws.close(); });
`;

interface Command {
  args: string[];
  /** What its stdout must hold: a failing run must not pass for a fast one. */
  prints: RegExp;
}

/**
 * The CPU (user + system, the whole process) of `tabwire --help` against `node -e 0`, and of `tabwire eval "1+1"` on
 * the bench's tab against a minimal ws client script making the same evaluate call, each the median of SAMPLES samples.
 */
export async function cliFigures(context: BenchContext, hubUrl: string, cwd: string): Promise<Figure[]> {
  const eval2 = /"type":"number","value":2/;
  const commands = {
    help: { args: ["dist/src/cli.js", "--help"], prints: /^tabwire: a WebSocket JSON-RPC hub/ },
    bare: { args: ["-e", "0"], prints: /^$/ },
    eval: { args: ["dist/src/cli.js", "eval", "--target", context.target, "1+1"], prints: eval2 },
    ws: { args: ["-e", WS_CLIENT, hubUrl, context.target], prints: eval2 },
  };
  const seconds = { help: [] as number[], bare: [] as number[], eval: [] as number[], ws: [] as number[] };
  const env = { ...process.env, TABWIRE_URL: hubUrl, TABWIRE_TOKEN: "", HUB_TOKEN: "" };
  // A run of each first, so that every measured run finds its files in the page cache.
  for (const command of Object.values(commands)) await cpuOfRun(command, { cwd, env });
  for (let sample = 0; sample < SAMPLES; sample++) {
    for (const name of ["help", "bare", "eval", "ws"] as const) {
      let total = 0;
      for (let run = 0; run < RUNS_PER_SAMPLE; run++) total += await cpuOfRun(commands[name], { cwd, env });
      seconds[name].push(total / RUNS_PER_SAMPLE);
    }
  }
  const runs = `whole process, user + system, median of ${SAMPLES} means of ${RUNS_PER_SAMPLE} runs`;
  return [
    {
      name: `CPU of \`tabwire --help\` (${runs}) / \`node -e 0\``,
      label: "tabwire --help CPU vs node -e 0",
      ...reported(seconds.help, seconds.bare),
    },
    {
      name: `CPU of \`tabwire eval --target T "1+1"\` on the bench's tab and hub (${runs}) / a minimal ws client script making the same evaluate call`,
      label: "tabwire eval CPU vs a minimal ws client",
      ...reported(seconds.eval, seconds.ws),
    },
    { name: `CPU of \`tabwire --help\` (${runs})`, label: "tabwire --help CPU", ...onItsGoal(median(seconds.help)) },
    {
      name: `CPU of \`tabwire eval --target T "1+1"\` on the bench's tab and hub (${runs})`,
      label: "tabwire eval CPU",
      ...onItsGoal(median(seconds.eval)),
    },
  ];
}

// Medians of each side's samples, and the median of the samples' ratios (taken side by side), as compare.ts does.
function reported(hub: number[], alternative: number[]): Omit<Figure, "name" | "label"> {
  const ratios = hub.map((value, i) => value / (alternative[i] ?? value));
  return { unit: "s", goal: "(report)", hub: median(hub), alternative: median(alternative), ratio: median(ratios) };
}

// The goal is on the figure itself: no alternative, and the ratio column holds the value.
function onItsGoal(value: number): Omit<Figure, "name" | "label"> {
  return { unit: "s", goal: `<= ${CPU_GOAL_SECONDS}`, hub: value, alternative: Number.NaN, ratio: value };
}

/** Runs `node <args>` to its exit and returns the CPU seconds it used; throws when it failed or printed something else. */
async function cpuOfRun(command: Command, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  const before = reapedChildrenCpuSeconds();
  const child = spawn(process.execPath, command.args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`bench: node ${command.args.join(" ")} did not end within ${RUN_TIMEOUT_MS} ms`));
    }, RUN_TIMEOUT_MS);
    child.once("close", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  const seconds = reapedChildrenCpuSeconds() - before;
  if (code !== 0 || !command.prints.test(stdout))
    throw new Error(`bench: node ${command.args.slice(0, 2).join(" ")} exited ${code}: ${stdout.slice(0, 200)} ${stderr.slice(0, 200)}`);
  return seconds;
}
