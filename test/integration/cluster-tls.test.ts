import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startClusterHubs, stopHub, type ClusterHub } from "../support/cluster-hub.js";
import { eventually } from "../support/eventually.js";
import { RedisOutsider } from "../support/redis-outsider.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { requireChromium } from "../support/test-hub.js";
import { makeTestCertificates, type TestCertificates } from "../support/tls-certificates.js";

const FULL_TOKEN = "cluster-full-token";
const START_TIMEOUT_MS = 60_000;

describe("a cluster on rediss:// with REDIS_CA_FILE: TLS to Redis, checked against that CA only", function () {
  this.timeout(30_000);
  let dir = "";
  let certificates: TestCertificates;
  let redis: RedisServer | undefined;
  let watcher: RedisOutsider | undefined;
  const hubs: ClusterHub[] = [];
  const clients: TestRpcClient[] = [];

  before(async function () {
    this.timeout(START_TIMEOUT_MS + 30_000);
    requireChromium();
    dir = mkdtempSync(path.join(os.tmpdir(), "tabwire-redis-tls-"));
    certificates = makeTestCertificates(dir);
    redis = await startRedisServer({ tls: certificates });
    watcher = await RedisOutsider.connect(redis.url, { socket: { tls: true, ca: readFileSync(certificates.caFile) } });
    const env = { HUB_TOKENS: FULL_TOKEN };
    // One instance trusts the CA that signed Redis's certificate; the other trusts another CA, as if someone in
    // the middle answered with a certificate of their own.
    const started = await Promise.allSettled([
      startClusterHubs(["tls-one"], redis.url, { ...env, REDIS_CA_FILE: certificates.caFile }),
      startClusterHubs(["tls-misled"], redis.url, { ...env, REDIS_CA_FILE: certificates.otherCaFile }),
    ]);
    for (const result of started) if (result.status === "fulfilled") hubs.push(...result.value);
    for (const result of started) if (result.status === "rejected") throw result.reason;
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all(clients.map((c) => c.close()));
    await watcher?.close();
    await Promise.all(hubs.map(stopHub));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("joins the cluster over TLS: it is listed in Redis and its events go out signed", async () => {
    const hub = hubs[0] as ClusterHub;
    const instances = async (): Promise<unknown> => (watcher as RedisOutsider).command(["ZRANGE", "tabwire:instances", "0", "-1"]);
    await eventually(async () => ((await instances()) as string[]).includes("tls-one"), 10_000, "tls-one listed in Redis");
    const client = await TestRpcClient.connect(hub.url, { token: FULL_TOKEN });
    clients.push(client);
    const { target } = await client.call<{ target: string }>("tabs.open", { url: "about:blank" });
    const event = await (watcher as RedisOutsider).waitFor(
      (m) => m.channel === "tabwire:events" && m.body.includes(target),
      "the tab.opened event",
    );
    expect(event.text.startsWith("tw1 ")).to.equal(true);
  });

  it("refuses a Redis whose certificate another CA signed: it never joins, and says why", async () => {
    const hub = hubs[1] as ClusterHub;
    await eventually(
      async () => /cluster: Redis connection problem.*certificate/i.test(hub.log()),
      10_000,
      "the misled instance logging the certificate problem",
    );
    const instances = (await (watcher as RedisOutsider).command(["ZRANGE", "tabwire:instances", "0", "-1"])) as string[];
    expect(instances).to.include("tls-one");
    expect(instances).not.to.include("tls-misled");
  });
});
