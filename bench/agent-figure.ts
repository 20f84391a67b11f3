import { spawn, type ChildProcess } from "node:child_process";
import WebSocket from "ws";
import { answered, compareThroughput, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { percentile, timeSequential } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const CALLS_PER_ROUND = 2_000;
const IN_FLIGHT = 64;
const LATENCY_CALLS = 1_000;
const AGENT_ID = "bench-agent";

// A plain ws echo server in a process of its own, as the hub is: the ceiling a relay is held against.
const ECHO_SERVER = `
const { WebSocketServer } = require("ws");
const server = new WebSocketServer({ port: 0, host: "127.0.0.1", perMessageDeflate: false });
server.on("listening", () => process.stdout.write("port " + server.address().port + "\\n"));
server.on("connection", (ws) => ws.on("message", (data) => ws.send(data, { binary: false })));
`;

/** Routed calls per second (orchestrator -> hub -> agent -> hub -> orchestrator) against a ws echo of the same frames. */
export async function agentFigures(context: BenchContext, hubUrl: string, cwd: string): Promise<Figure[]> {
  const agent = await connectAgent(hubUrl);
  const echo = await startEcho(cwd);
  try {
    const echoCaller = await WsCaller.open(echo.url);
    const run = { jsonrpc: "2.0", method: "agent.run", params: { target: `${AGENT_ID}:default`, input: "ping" } };
    const routed = await compareThroughput(
      {
        viaHub: () => answered(context.hub.send(run)),
        viaAlternative: () => answered(echoCaller.send(run)),
        warmupCalls: 500,
        calls: CALLS_PER_ROUND,
        rounds: context.rounds,
      },
      IN_FLIGHT,
    );
    await echoCaller.close();
    const latencies = await timeSequential(LATENCY_CALLS, () => answered(context.hub.send(run)));
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    return [
      {
        name: `routed agent calls per second (${IN_FLIGHT} in flight): hub / plain ws echo of the same frames`,
        label: "routed agent calls/s vs plain ws echo",
        unit: "calls/s",
        goal: ">= 0.4",
        ...routed,
      },
      {
        name: "routed agent call latency, sequential: p50 / p99",
        label: "agent call latency, sequential: p50 vs p99",
        hub: p50,
        alternative: p99,
        unit: "ms",
        ratio: p99 / p50,
        goal: "(report)",
      },
    ];
  } finally {
    agent.close();
    echo.process.kill();
  }
}

/** A minimal agent on the hub's /agent endpoint that answers every task at once. */
function connectAgent(hubUrl: string): Promise<WebSocket> {
  const ws = new WebSocket(`${hubUrl}/agent`, { perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    ws.once("error", reject);
    ws.on("message", (data) => {
      const frame = JSON.parse((data as Buffer).toString("utf8")) as Record<string, unknown>;
      if (frame.type === "welcome") ws.send(JSON.stringify({ type: "register", clientId: AGENT_ID, capabilities: {} }));
      else if (frame.type === "registration_ack") {
        ws.send(JSON.stringify({ type: "ready" }));
        // The hub reads one socket's frames in order: once this ping is answered, the agent is ready there.
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: "ready-probe", method: "ping" }));
      } else if (frame.id === "ready-probe") resolve(ws);
      else if (frame.method === "evaluate")
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { status: "success", output: "pong" } }));
    });
  });
}

function startEcho(cwd: string): Promise<{ process: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["-e", ECHO_SERVER], { cwd, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the echo server did not start within 10 s")), 10_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      const match = /port (\d+)/.exec(chunk.toString());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ process: child, url: `ws://127.0.0.1:${match[1]}` });
      }
    });
  });
}
