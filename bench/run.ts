import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { launchChrome, resolveChromePath } from "../src/cdp/chrome-launcher.js";
import { agentFigures } from "./agent-figure.js";
import { consoleFigure } from "./console-figure.js";
import { evaluateFigure } from "./evaluate-figure.js";
import type { Figure } from "./figure.js";
import { screenshotFigure } from "./screenshot-figure.js";
import { WsCaller } from "./ws-caller.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS_PER_ROUND = Number(process.env.BENCH_CALLS ?? 500);

async function startHub(cdpUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["dist/src/cli.js", "serve"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", CDP_URL: cdpUrl, LOG_LEVEL: "warn", LOG_DIR: `${os.tmpdir()}/tabwire-bench-logs` },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error("the hub did not start within 20 s")), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (ws:\/\/\S+)\/rpc/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return { child, url };
}

async function main(): Promise<void> {
  const chrome = await launchChrome(resolveChromePath(process.env.CHROME_PATH ?? null), []);
  let child: ChildProcess | undefined;
  let hub: WsCaller | undefined;
  let raw: WsCaller | undefined;
  try {
    const started = await startHub(chrome.wsUrl);
    child = started.child;
    hub = await WsCaller.open(`${started.url}/rpc`);
    raw = await WsCaller.open(chrome.wsUrl);
    const opened = (await hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: "about:blank" } })) as {
      result: { target: string; tabId: string };
    };
    const attached = (await raw.send({ method: "Target.attachToTarget", params: { targetId: opened.result.tabId, flatten: true } })) as {
      result: { sessionId: string };
    };
    const context = { hub, raw, target: opened.result.target, sessionId: attached.result.sessionId, rounds: ROUNDS, calls: CALLS_PER_ROUND };
    const figures = [
      await evaluateFigure(context),
      await screenshotFigure(context),
      await consoleFigure(context),
      ...(await agentFigures(context, started.url, ROOT)),
    ];
    report(figures);
  } finally {
    hub?.close();
    raw?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await chrome.kill();
  }
}

function report(figures: Figure[]): void {
  const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
  const lines = [
    `tabwire bench (${ROUNDS} rounds x ${CALLS_PER_ROUND} calls, medians; ${machine})`,
    "",
    "| figure | tabwire | alternative | ratio | goal |",
    "|---|---|---|---|---|",
    ...figures.map((f) => `| ${f.name} | ${f.hub.toFixed(3)} ${f.unit} | ${f.alternative.toFixed(3)} ${f.unit} | ${f.ratio.toFixed(2)}x | ${f.goal} |`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  mkdirSync(new URL("../../bench/", import.meta.url), { recursive: true });
  writeFileSync(new URL("../../bench/results.json", import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), machine, rounds: ROUNDS, callsPerRound: CALLS_PER_ROUND, figures }, null, 2)}\n`);
}

await main();
