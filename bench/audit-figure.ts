import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../src/config.js";
import { closeLogging, configureLogging } from "../src/log.js";
import { auditCallOf } from "../src/rpc/call-audit.js";
import type { ConnectionState } from "../src/rpc/method.js";
import type { Figure } from "./figure.js";
import { median } from "./stats.js";

const CALLS = 100_000;

/**
 * What audit.log costs a call that changes something (every evaluate is one): the CPU of making its line, chaining
 * it (two SHA-256) and writing it, per call, measured in this process on a log of its own (median of the rounds).
 */
export async function auditFigure(rounds: number): Promise<Figure> {
  const logDir = await mkdtemp(path.join(os.tmpdir(), "tabwire-bench-audit-"));
  const config = parseConfig({ ...process.env, LOG_DIR: logDir, HUB_TOKEN: "", LOG_LEVEL: "warn" });
  const connection = { id: "bench", scope: null, peer: "127.0.0.1", who: "token-1" } as unknown as ConnectionState;
  const params = { target: "alpha:0123456789ABCDEF0123456789ABCDEF", expression: "document.title" };
  const perCallUs: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      configureLogging(config);
      const started = process.cpuUsage();
      for (let n = 0; n < CALLS; n++) auditCallOf({ method: "evaluate", params, outcome: "ok" }, connection);
      // Writing what is queued is part of the cost.
      closeLogging();
      const used = process.cpuUsage(started);
      perCallUs.push((used.user + used.system) / CALLS);
    }
  } finally {
    await rm(logDir, { recursive: true, force: true });
  }
  const name = "audit.log: CPU per audited call (an evaluate's line: made, chained, written)";
  return { name, label: name, hub: median(perCallUs), alternative: Number.NaN, unit: "µs", ratio: Number.NaN, goal: "(report)" };
}
