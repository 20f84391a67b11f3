import { expect } from "chai";
import { createClient } from "redis";
import { TabwireClient } from "../../src/client/index.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startClusterHubs, stopHub, type ClusterHub, ClusterClients } from "../support/cluster-hub.js";
import { startCountingServer, type CountingServer } from "../support/egress-fixture.js";
import { RawCdp } from "../support/raw-cdp.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { failure } from "../support/rpc-client.js";
import { evaluate, openTab } from "../support/tabs.js";
import { requireChromium } from "../support/test-hub.js";

const ALPHA = "cluster-egress-alpha-token";
const BETA = "cluster-egress-beta-token";
const FULL = "cluster-egress-full-token";
const START_TIMEOUT_MS = 90_000;
const INVALID_PARAMS = -32602;
const BROWSER_UNAVAILABLE = -32006;
const FORBIDDEN = -32007;
const NAVIGATION_FAILED = -32012;

/**
 * A client's own egress policy (clients.configure {policy}) in a cluster of two: it lives on the instance the call
 * ran on, the only one that makes the client's browser context (behind its proxy); the client's calls through the
 * other instance go there, and the other instance refuses to make the client a context of its own.
 */
describe("a client's own egress policy in a cluster of two on Redis (real hubs, Chromium)", function () {
  this.timeout(START_TIMEOUT_MS + 4 * EVENT_BUDGET_MS);
  let redis: RedisServer | undefined;
  let reader: ReturnType<typeof createClient> | undefined;
  let allowed: CountingServer;
  let other: CountingServer;
  let hubs: ClusterHub[] = [];
  const clients = new ClusterClients(() => hubs);
  const hub = (id: string): ClusterHub => clients.hub(id);
  const client = (id: string, token: string): Promise<TabwireClient> => clients.connect(id, token);
  const holder = async (claim: string): Promise<string | null> => {
    const owner = await reader?.get(`tabwire:owner:${claim}`);
    return owner ? (owner.split("|")[0] ?? null) : null;
  };
  const allowedUrl = (where: string): string => `http://allowed.test:${allowed.port}${where}`;
  const otherUrl = (where: string): string => `http://other.test:${other.port}${where}`;
  const fetched = (url: string): string => `fetch(${JSON.stringify(url)}).then((r) => r.status, (e) => 'refused: ' + e.message)`;

  before(async function () {
    this.timeout(START_TIMEOUT_MS);
    requireChromium();
    [redis, allowed, other] = await Promise.all([startRedisServer(), startCountingServer(), startCountingServer()]);
    reader = createClient({ url: redis.url });
    // The last test stops Redis for a moment: this reader's lost connection is not the test's failure.
    reader.on("error", () => undefined);
    await reader.connect();
    hubs = await startClusterHubs(["egress-one", "egress-two"], redis.url, {
      HUB_TOKENS: `${FULL},${ALPHA}:alpha,${BETA}:beta`,
      EGRESS_HOSTS: "allowed.test=127.0.0.1,other.test=127.0.0.1",
    });
  });
  after(async () => {
    await clients.closeAll();
    await Promise.all(hubs.map(stopHub));
    // destroy, not quit: quit waits forever on a client whose Redis went away and came back (it never reconnects to send QUIT).
    reader?.destroy();
    await Promise.all([redis?.stop(), allowed?.close(), other?.close()]);
  });

  it("set through one instance, it holds for the tabs opened through the other; its calls go there; another token gets nothing", async () => {
    const alphaOne = await client("egress-one", ALPHA);
    const alphaTwo = await client("egress-two", ALPHA);
    const configured = await alphaOne.call("clients.configure", { clientId: "alpha", policy: { egress: { allow: ["allowed.test"] } } });
    expect(configured).to.include({ clientId: "alpha", policies: 1 });
    expect(await holder("egress:alpha"), "the instance that holds alpha's policy").to.equal("egress-one");

    // Opened through instance two, the tab is made on instance one, behind the policy.
    const tab = await openTab(alphaTwo, allowedUrl("/page"), { clientId: "alpha" });
    expect(await holder(`tab:${tab.target}`), "the instance whose Chrome holds the tab").to.equal("egress-one");
    const before = { data: allowed.hits("/data"), other: other.hits() };
    expect((await evaluate(alphaTwo, tab.target, fetched(allowedUrl("/data")))).value).to.equal(200);
    expect((await evaluate(alphaTwo, tab.target, fetched(otherUrl("/data")))).value).to.match(/^refused/);
    const refused = await failure(alphaTwo.call("tabs.open", { clientId: "alpha", url: otherUrl("/page") }));
    expect(refused.code, refused.message).to.equal(NAVIGATION_FAILED);
    expect(refused.data).to.have.nested.property("policy.host", "other.test");
    expect(allowed.hits("/data")).to.equal(before.data + 1);
    expect(other.hits(), "requests that reached the refused server").to.equal(before.other);

    // A cookie set through instance two is in the one context alpha has, on instance one.
    await alphaTwo.call("cookies.set", { clientId: "alpha", cookies: [{ name: "seen", value: "yes", url: allowedUrl("/") }] });
    const cookies = (await alphaOne.call("cookies.get", { clientId: "alpha" })).cookies.map((cookie) => cookie.name);
    expect(cookies).to.include("seen");
    // A narrower policy through instance two joins the first on instance one.
    const second = { egress: { ports: [allowed.port], blockPrivateNetworks: false } };
    expect(await alphaTwo.call("clients.configure", { clientId: "alpha", policy: second })).to.include({ policies: 2 });
    expect((await evaluate(alphaTwo, tab.target, fetched(`http://allowed.test:${other.port}/data`))).value).to.match(/^refused/);
    expect(other.hits(), "requests that reached the refused server").to.equal(before.other);

    // Another token's calls for alpha are FORBIDDEN through either instance; its own client is not policed.
    const betaTwo = await client("egress-two", BETA);
    for (const call of [
      betaTwo.call("clients.configure", { clientId: "alpha", persistent: false }),
      betaTwo.call("tabs.open", { clientId: "alpha", url: "about:blank" }),
      betaTwo.call("cookies.get", { clientId: "alpha" }),
    ])
      expect((await failure(call)).code).to.equal(FORBIDDEN);
    const betaTab = await openTab(betaTwo, `http://127.0.0.1:${other.port}/beta`, { clientId: "beta" });
    expect(other.hits("/beta"), "beta's page, which no policy holds").to.equal(1);
    expect(await holder(`tab:${betaTab.target}`)).to.equal("egress-two");
    await betaTwo.call("tabs.close", { target: betaTab.target });
    await alphaTwo.call("tabs.close", { target: tab.target });
  });

  it("/cdp on the instance without alpha's policy makes alpha no page; alpha's /cdp on the instance with it is held to it", async () => {
    const alphaOne = await client("egress-one", ALPHA);
    const policed = await alphaOne.call("clients.configure", { clientId: "alpha", policy: { egress: { allow: ["allowed.test"] } } });
    expect(policed.policies).to.be.at.least(1);
    const elsewhere = await RawCdp.open(`${hub("egress-two").url}/cdp`, ALPHA);
    try {
      const created = await elsewhere.send("Target.createTarget", { url: otherUrl("/through-cdp") });
      expect(created.error, "Target.createTarget through the instance without the policy").to.be.an("object");
      expect(JSON.stringify(created.error)).to.include("egress-one");
    } finally {
      elsewhere.close();
    }
    const home = await RawCdp.open(`${hub("egress-one").url}/cdp`, ALPHA);
    try {
      const created = await home.send("Target.createTarget", { url: otherUrl("/through-cdp") });
      expect(created.result, JSON.stringify(created.error)).to.have.property("targetId");
    } finally {
      home.close();
    }
    expect(other.hits("/through-cdp"), "pages of alpha's that reached the refused server").to.equal(0);
  });

  it("a policy is refused while the client has tabs on the other instance made without one, and holds once they are closed", async () => {
    const fullOne = await client("egress-one", FULL);
    const fullTwo = await client("egress-two", FULL);
    // A client with no policy reaches hosts as Chrome resolves them: the other server by its address.
    const plainUrl = (where: string): string => `http://127.0.0.1:${other.port}${where}`;
    const early = await openTab(fullTwo, plainUrl("/early"), { clientId: "gamma" });
    expect(await holder(`tab:${early.target}`)).to.equal("egress-two");
    const policy = { egress: { allow: ["allowed.test"] } };
    const refused = await failure(fullOne.call("clients.configure", { clientId: "gamma", policy }));
    expect(refused.code, refused.message).to.equal(INVALID_PARAMS);
    expect(refused.message).to.include("egress-two");
    expect(await holder("egress:gamma"), "no instance holds a policy that was refused").to.equal(null);
    // The refused policy changed nothing: gamma's tab still reaches the other server.
    expect((await evaluate(fullOne, early.target, fetched(plainUrl("/still")))).value).to.equal(200);

    await fullOne.call("tabs.close", { target: early.target });
    expect(await fullOne.call("clients.configure", { clientId: "gamma", policy })).to.include({ policies: 1 });
    const later = await openTab(fullTwo, allowedUrl("/later"), { clientId: "gamma" });
    expect(await holder(`tab:${later.target}`)).to.equal("egress-one");
    expect((await evaluate(fullTwo, later.target, fetched(plainUrl("/after")))).value).to.match(/^refused/);
    expect(other.hits("/after"), "requests of gamma's that reached the refused server").to.equal(0);
    await fullTwo.call("tabs.close", { target: later.target });
  });

  it("when Redis cannot say where a client's policy lives, the instance makes the client no context (never one without its policy)", async () => {
    const fullTwo = await client("egress-two", FULL);
    await (redis as RedisServer).kill();
    try {
      const refused = await failure(fullTwo.call("tabs.open", { clientId: "delta", url: otherUrl("/redis-away") }));
      expect(refused.code, refused.message).to.equal(BROWSER_UNAVAILABLE);
    } finally {
      await (redis as RedisServer).restart();
    }
    expect(other.hits("/redis-away")).to.equal(0);
  });
});
