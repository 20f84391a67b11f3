import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { TabwireClient } from "../src/client/index.js";
import { startFixtureServer, type FixtureServer } from "../test/support/fixture-server.js";
import type { Figure } from "./figure.js";
import { startHubProcess, type HubProcess } from "./load.js";
import { median } from "./stats.js";

const KEPT_CLIENT = "keeper";
const FRESH_CLIENT = "fresh";
const COOKIE = "session=bench-restore";
// The page both paths end on, and the call that needs it: it sends the client's cookie to the fixture server.
const PAGE = "other.html";
const CALL = "fetch('/cookies').then((r) => r.text())";
const RESTORE_TIMEOUT_MS = 60_000;

/** From the hub's spawn: when its port answered and when the first call on a tab (restored, or opened) answered. */
interface StartTiming {
  listeningMs: number;
  answeredMs: number;
}

/**
 * On hubs of their own, each with its embedded Chrome: a hub restarted on the DATA_DIR of one that saved a persistent
 * client with two tabs and a cookie, from its spawn to the first answered evaluate on a restored tab, against a hub
 * on an empty DATA_DIR, from its spawn to a fresh client's first tabs.open of the same page and evaluate.
 */
export async function restoreFigures(rounds: number): Promise<Figure[]> {
  const fixtures = await startFixtureServer();
  try {
    const restored: StartTiming[] = [];
    const fresh: StartTiming[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternated, so that a machine that grows busier during the run weighs on both paths alike.
      if (round % 2 === 0) restored.push(await restoreRound(fixtures));
      fresh.push(await freshRound(fixtures));
      if (round % 2 === 1) restored.push(await restoreRound(fixtures));
    }
    const answered = (timings: StartTiming[]): number => median(timings.map((t) => t.answeredMs));
    const afterPort = (timings: StartTiming[]): number => median(timings.map((t) => t.answeredMs - t.listeningMs));
    const listening = (timings: StartTiming[]): number => median(timings.map((t) => t.listeningMs));
    return [
      compare(
        "restart with a persistent client (two tabs, a cookie): hub spawned to the first answered evaluate on a restored tab / a hub on an empty DATA_DIR, spawned to a fresh client's first tabs.open of the same page + evaluate",
        "restore: spawn to a call on a restored tab",
        [answered(restored), answered(fresh)],
      ),
      compare(
        "the same, from the hub's port answering: to the evaluate on a restored tab / to the fresh client's tabs.open + evaluate",
        "restore: port up to a call on a restored tab",
        [afterPort(restored), afterPort(fresh)],
      ),
      compare(
        "hub spawned to its port answering: with a saved persistent client of two tabs / with an empty DATA_DIR",
        "restore: spawn to port up",
        [listening(restored), listening(fresh)],
      ),
    ];
  } finally {
    await fixtures.close();
  }
}

function compare(name: string, label: string, [hub, alternative]: [number, number]): Figure {
  return { name, label, hub, alternative, unit: "ms", ratio: hub / alternative, goal: "(report)" };
}

/** One restore: a hub saves the client and stops, the next one on its DATA_DIR is timed until a restored tab answers. */
async function restoreRound(fixtures: FixtureServer): Promise<StartTiming> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "tabwire-bench-restore-"));
  try {
    const targets = await savePersistentClient(fixtures, dataDir);
    return await timeRestore(dataDir, targets);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A persistent client with two tabs (logged in with an HttpOnly cookie), saved; the hub stopped. Gives their targets. */
async function savePersistentClient(fixtures: FixtureServer, dataDir: string): Promise<[string, string]> {
  const hub = await startHubProcess({ env: { DATA_DIR: dataDir } });
  let client: TabwireClient | undefined;
  try {
    client = await TabwireClient.connect({ url: hub.url, reconnect: false });
    const [name, value] = COOKIE.split("=") as [string, string];
    const login = await client.call("tabs.open", { clientId: KEPT_CLIENT, url: fixtures.url(`set-cookie?name=${name}&value=${value}`) });
    await client.call("navigate", { target: login.target, url: fixtures.url("index.html") });
    const second = await client.call("tabs.open", { clientId: KEPT_CLIENT, url: fixtures.url(PAGE) });
    // It answers once the state is written to DATA_DIR/persistent/keeper.json.
    await client.call("clients.configure", { clientId: KEPT_CLIENT, persistent: true });
    return [login.target, second.target];
  } finally {
    // SIGTERM, waited for: the hub saves the client again at its stop and its embedded Chrome is gone before the next.
    await stopBoth(client, hub);
  }
}

async function timeRestore(dataDir: string, targets: [string, string]): Promise<StartTiming> {
  const hub = await startHubProcess({ env: { DATA_DIR: dataDir } });
  const listeningMs = performance.now() - hub.spawnedAt;
  let client: TabwireClient | undefined;
  try {
    client = await TabwireClient.connect({ url: hub.url, reconnect: false });
    await untilRestored(client, targets);
    const { value } = await client.evaluate({ target: targets[1], expression: CALL });
    const answeredMs = performance.now() - hub.spawnedAt;
    if (value !== COOKIE) throw new Error(`the restored tab sent ${JSON.stringify(value)}, not the saved cookie`);
    const { tabs } = await client.call("tabs.list", { clientId: KEPT_CLIENT });
    if (tabs.map((tab) => tab.target).join() !== targets.join()) throw new Error(`restored tabs: ${JSON.stringify(tabs)}`);
    return { listeningMs, answeredMs };
  } finally {
    await stopBoth(client, hub);
  }
}

/** Resolves once the client's tabs are listed under their old targets: listed already, or told by tab.restored. */
async function untilRestored(client: TabwireClient, targets: readonly string[]): Promise<void> {
  const told = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let off = (): void => {};
  const all = new Promise<void>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the client was not restored within ${RESTORE_TIMEOUT_MS} ms`)), RESTORE_TIMEOUT_MS);
    off = client.on("tab.restored", (params) => {
      told.add(params.target);
      if (targets.every((target) => told.has(target))) resolve();
    });
  });
  try {
    await client.call("events.subscribe", { topics: ["tabs"] });
    const { tabs } = await client.call("tabs.list", { clientId: KEPT_CLIENT });
    const listed = new Set(tabs.map((tab) => tab.target));
    if (!targets.every((target) => listed.has(target))) await all;
  } finally {
    off();
    clearTimeout(timer);
    all.catch(() => undefined);
  }
}

/** The alternative: a hub on an empty DATA_DIR, timed until a fresh client's first tab of the same page answers. */
async function freshRound(fixtures: FixtureServer): Promise<StartTiming> {
  const hub = await startHubProcess();
  const listeningMs = performance.now() - hub.spawnedAt;
  let client: TabwireClient | undefined;
  try {
    client = await TabwireClient.connect({ url: hub.url, reconnect: false });
    const { target } = await client.call("tabs.open", { clientId: FRESH_CLIENT, url: fixtures.url(PAGE) });
    const { value } = await client.evaluate({ target, expression: CALL });
    const answeredMs = performance.now() - hub.spawnedAt;
    if (value !== "") throw new Error(`a fresh client's tab sent cookies: ${JSON.stringify(value)}`);
    return { listeningMs, answeredMs };
  } finally {
    await stopBoth(client, hub);
  }
}

async function stopBoth(client: TabwireClient | undefined, hub: HubProcess): Promise<void> {
  await client?.close();
  await hub.stop();
}
