import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { launchChrome, resolveChromePath } from "../src/cdp/chrome-launcher.js";
import type { Figure } from "./figure.js";
import { median, timeSequential } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS_PER_ROUND = Number(process.env.BENCH_CALLS ?? 500);
const WARMUP_CALLS = 200;

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

/** Median evaluate("1+1") round trip through the hub against raw CDP on a held flattened session, rounds interleaved. */
async function evaluateRoundTrip(hub: WsCaller, raw: WsCaller, target: string, sessionId: string): Promise<Figure> {
  const viaHub = (): Promise<unknown> => hub.send({ jsonrpc: "2.0", method: "evaluate", params: { target, expression: "1+1" } });
  const viaRaw = (): Promise<unknown> => raw.send({ method: "Runtime.evaluate", params: { expression: "1+1", returnByValue: true }, sessionId });
  await timeSequential(WARMUP_CALLS, viaHub);
  await timeSequential(WARMUP_CALLS, viaRaw);
  const hubMedians: number[] = [];
  const rawMedians: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    hubMedians.push(median(await timeSequential(CALLS_PER_ROUND, viaHub)));
    rawMedians.push(median(await timeSequential(CALLS_PER_ROUND, viaRaw)));
  }
  const ratios = hubMedians.map((h, i) => h / (rawMedians[i] ?? h));
  return {
    name: "evaluate(\"1+1\") round trip: hub / raw CDP Runtime.evaluate on a held session",
    hub: median(hubMedians),
    alternative: median(rawMedians),
    unit: "ms",
    ratio: median(ratios),
    goal: "<= 1.3",
  };
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
    const figures = [await evaluateRoundTrip(hub, raw, opened.result.target, attached.result.sessionId)];
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
