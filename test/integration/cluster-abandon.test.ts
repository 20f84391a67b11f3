import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { ClusterClients, startClusterHubs, stopHub, type ClusterHub } from "../support/cluster-hub.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { requireChromium } from "../support/test-hub.js";

const FULL = "cluster-abandon-full-token";
// Long enough that a slow machine's calls come closer together than this; the test waits about this much after its last.
const ABANDON_MS = 5_000;
const START_TIMEOUT_MS = 90_000;

/**
 * CLIENT_ABANDON_MS in a cluster: a connection on another instance acts for a client on the owner while its calls run
 * there; once they are done it holds nothing there, so the client's time starts again from its last call.
 */
describe("abandoned clients in a cluster of two on Redis (real hubs, Chromium)", function () {
  this.timeout(START_TIMEOUT_MS + 2 * EVENT_BUDGET_MS);
  let redis: RedisServer | undefined;
  let hubs: ClusterHub[] = [];
  const clients = new ClusterClients(() => hubs);

  before(async function () {
    this.timeout(START_TIMEOUT_MS);
    requireChromium();
    redis = await startRedisServer();
    hubs = await startClusterHubs(["abandon-one", "abandon-two"], redis.url, { HUB_TOKENS: FULL, CLIENT_ABANDON_MS: String(ABANDON_MS) });
  });
  after(async () => {
    await clients.closeAll();
    await Promise.all(hubs.map(stopHub));
    await redis?.stop();
  });

  it("a client called only through the other instance is abandoned CLIENT_ABANDON_MS after its last call, though that connection stays open", async () => {
    // The watcher is on the other instance: an owner's event goes out to the others only once its listing in Redis
    // is rewritten, so what the watcher then lists there no longer has the tab (on the owner, it hears it first).
    const watcher = await clients.connect("abandon-two", FULL);
    await watcher.call("events.subscribe", { topics: ["tabs"] });
    const opener = await clients.connect("abandon-one", FULL);
    const { target } = await opener.call("tabs.open", { clientId: "zeta", url: "about:blank" });
    const closed = tabClosed(watcher, target);
    // Through the other instance: each call runs on abandon-one, the tab's owner, for a caller it knows only by its
    // calls. The first runs while the opener is still connected, so the client is in use throughout, whatever the pace.
    const caller = await clients.connect("abandon-two", FULL);
    const evaluate = async (): Promise<void> => {
      expect((await caller.call("evaluate", { target, expression: "1 + 1" })).value).to.equal(2);
    };
    await evaluate();
    await opener.close();
    for (let call = 0; call < 4; call += 1) await evaluate();
    expect(await closed).to.equal("abandoned");
    expect((await caller.call("tabs.list", { clientId: "zeta" })).tabs).to.deep.equal([]);
  });
});

/** The reason of the tab's tab.closed, or a failure after EVENT_BUDGET_MS. */
function tabClosed(watcher: TabwireClient, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no tab.closed for ${target} within ${EVENT_BUDGET_MS} ms`)), EVENT_BUDGET_MS);
    const stop = watcher.on("tab.closed", (params) => {
      if (params.target !== target) return;
      clearTimeout(timer);
      stop();
      resolve(params.reason);
    });
  });
}
