import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startRedisServer } from "../test/support/redis-server.js";
import { answered, compareLatency, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { resumeAfterCut } from "./resume-figure.js";
import { median } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

interface Instance {
  child: ChildProcess;
  url: string;
  tmp: string;
}

/**
 * Median evaluate("1+1") on a tab of instance A called through instance B (forwarded over Redis) against the same
 * call through instance A itself: two `tabwire serve` processes, each with its own embedded Chromium, and a
 * redis-server of their own. The extra latency of forwarding is the difference, printed on stderr too.
 */
export async function clusterFigures(context: BenchContext, root: string): Promise<Figure[]> {
  const redis = await startRedisServer();
  const instances: Instance[] = [];
  const callers: WsCaller[] = [];
  try {
    for (const id of ["bench-owner", "bench-forwarder"]) instances.push(await startInstance(id, redis.url, root));
    const [owner, forwarder] = await Promise.all(instances.map((instance) => WsCaller.open(`${instance.url}/rpc`)));
    if (!owner || !forwarder) throw new Error("the cluster instances did not start");
    callers.push(owner, forwarder);
    const opened = (await answered(owner.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: "about:blank" } }))) as {
      result: { target: string };
    };
    const evaluate = (caller: WsCaller) => () =>
      answered(caller.send({ jsonrpc: "2.0", method: "evaluate", params: { target: opened.result.target, expression: "1+1" } }));
    const result = await compareLatency({
      viaHub: evaluate(forwarder),
      viaAlternative: evaluate(owner),
      warmupCalls: 200,
      calls: context.calls,
      rounds: context.rounds,
    });
    process.stderr.write(
      `bench: a forwarded evaluate adds ${(result.hub - result.alternative).toFixed(3)} ms (median ${result.hub.toFixed(3)} ms vs ${result.alternative.toFixed(3)} ms on the owner)\n`,
    );
    const forwarded: Figure = {
      name: 'evaluate("1+1") through another instance, forwarded over Redis / the same call on the instance that owns the tab',
      label: "cluster: forwarded vs local evaluate",
      unit: "ms",
      goal: "(report)",
      ...result,
    };
    return [forwarded, await resumeElsewhereFigure(instances, context.rounds)];
  } finally {
    await Promise.all(callers.map((caller) => caller.close()));
    await Promise.all(instances.map(stopInstance));
    await redis.stop();
  }
}

/**
 * A typed client cut for 2 s while its tab on instance A logs 2,000 messages: reconnect to the last of them when it
 * comes back through instance B (the session tunnelled from A) against coming back through A.
 */
async function resumeElsewhereFigure(instances: Instance[], rounds: number): Promise<Figure> {
  const [keeper, other] = instances as [Instance, Instance];
  const portOf = (instance: Instance): number => Number(new URL(instance.url).port);
  const elsewhere: number[] = [];
  const same: number[] = [];
  for (let round = 0; round < rounds; round++) {
    same.push(await resumeAfterCut(keeper.url, portOf(keeper)));
    elsewhere.push(await resumeAfterCut(keeper.url, portOf(keeper), portOf(other)));
  }
  const [hub, alternative] = [median(elsewhere), median(same)];
  return {
    name: "resume after a 2 s cut, reconnect to the last of 2,000 missed messages: back through another instance / through the same one",
    label: "cluster: resume through another instance",
    unit: "ms",
    goal: "(report)",
    hub,
    alternative,
    ratio: hub / alternative,
  };
}

async function startInstance(id: string, redisUrl: string, root: string): Promise<Instance> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `tabwire-bench-${id}-`));
  const env = {
    ...process.env,
    PORT: "0",
    REDIS_URL: redisUrl,
    CLUSTER_SECRET: "cluster-secret-for-bench",
    INSTANCE_ID: id,
    CDP_URL: "",
    LOG_LEVEL: "warn",
    LOG_DIR: path.join(tmp, "logs"),
    TMPDIR: tmp,
  };
  const child = spawn(process.execPath, ["dist/src/cli.js", "serve"], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`cluster instance ${id} ${why}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once("exit", (code) => fail(`exited with ${code}`));
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (ws:\/\/\S+)\/rpc/.exec(seen);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve(match[1]);
    });
  });
  return { child, url, tmp };
}

async function stopInstance(instance: Instance): Promise<void> {
  const { child } = instance;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS)))]);
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  rmSync(instance.tmp, { recursive: true, force: true });
}
