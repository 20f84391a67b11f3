import { expect } from "chai";
import { createClient } from "redis";
import { TabwireClient } from "../../src/client/index.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { AGENT_KEY, httpUrl, killHub, startClusterHubs, stopHub, type ClusterHub, ClusterClients } from "../support/cluster-hub.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { failure } from "../support/rpc-client.js";
import { evaluate, openTab } from "../support/tabs.js";
import { requireChromium } from "../support/test-hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";

const TTL_MS = 2_500;
// The figure: the client's next call through another instance finds its tabs there within 10 s of the kill.
const RESTORED_WITHIN_MS = 10_000;
const FULL = "cluster-persist-full-token";
const KEEPER = "cluster-persist-keeper-token";
const OTHER = "cluster-persist-other-token";
const OTHER_KEY = "cluster-persist-other-agent-key";
const START_TIMEOUT_MS = 90_000;

type Tabs = { tabs: { target: string; url: string }[] };

describe("persistent clients in a cluster of three on Redis: the instance that kept one is killed", function () {
  this.timeout(START_TIMEOUT_MS + 2 * EVENT_BUDGET_MS);
  let redis: RedisServer | undefined;
  let fixtures: FixtureServer | undefined;
  let reader: ReturnType<typeof createClient> | undefined;
  let hubs: ClusterHub[] = [];
  const clients = new ClusterClients(() => hubs);
  const hub = (id: string): ClusterHub => clients.hub(id);
  const client = (id: string, token: string): Promise<TabwireClient> => clients.connect(id, token);
  const sorted = (tabs: { target: string; url: string }[], key: "target" | "url"): string[] => tabs.map((tab) => tab[key]).sort();
  const holder = async (clientId: string): Promise<string | null> => {
    const owner = await reader?.get(`tabwire:owner:client:${clientId}`);
    return owner ? (owner.split("|")[0] ?? null) : null;
  };

  before(async function () {
    this.timeout(START_TIMEOUT_MS);
    requireChromium();
    [redis, fixtures] = await Promise.all([startRedisServer(), startFixtureServer()]);
    reader = createClient({ url: redis.url });
    await reader.connect();
    hubs = await startClusterHubs(["keep-one", "keep-two", "keep-three"], redis.url, {
      CLUSTER_TTL_MS: String(TTL_MS),
      HUB_TOKENS: `${FULL},${KEEPER}:keeper,${OTHER}:other`,
      AGENT_KEYS: `${AGENT_KEY},${OTHER_KEY}:other`,
      PERSIST_INTERVAL_MS: "500",
    });
  });
  after(async () => {
    await clients.closeAll();
    await Promise.all(hubs.map(stopHub));
    // destroy, not quit: quit waits forever on a client whose Redis went away and came back (it never reconnects to send QUIT).
    reader?.destroy();
    await Promise.all([redis?.stop(), fixtures?.close()]);
  });

  it("through another instance its two tabs are back under their targets within 10 s, logged in; nothing of it reaches another client", async () => {
    const site = fixtures as FixtureServer;
    const keeper = await client("keep-one", KEEPER);
    const other = await client("keep-one", OTHER);
    const login = await openTab(keeper, site.url("set-cookie?name=session&value=s-42"), { clientId: "keeper" });
    await keeper.call("navigate", { target: login.target, url: site.url("index.html") });
    await evaluate(keeper, login.target, "localStorage.setItem('user', 'ann')");
    const second = await openTab(keeper, site.url("other.html"), { clientId: "keeper" });
    await openTab(other, site.url("set-cookie?name=session&value=other-1"), { clientId: "other" });

    // Another client's token does not make keeper persistent.
    expect((await failure(other.call("clients.configure", { clientId: "keeper", persistent: true }))).code).to.equal(-32007);
    const configured = await keeper.call("clients.configure", { clientId: "keeper", persistent: true });
    expect(configured).to.include({ clientId: "keeper", persistent: true });
    expect(configured.persistedBytes).to.be.a("number");
    expect(await holder("keeper")).to.equal("keep-one");
    // What Redis keeps is sealed: neither the session cookie nor the stored user can be read there.
    const sealed = (await reader?.get("tabwire:state:keeper")) ?? "";
    expect(sealed).to.match(/^ts1\./);
    expect(sealed).not.to.include("s-42");
    expect(sealed).not.to.include("ann");

    const keeperTwo = await client("keep-two", KEEPER);
    const otherTwo = await client("keep-two", OTHER);
    const killedAt = Date.now();
    await killHub(hub("keep-one"));

    // The client's calls through instance two find its tabs, on whichever live instance took the client over.
    // (Until the killed instance's records run out, the listings still show its tabs: a call on them tells.)
    const listed = async (): Promise<boolean> => {
      const answered = await Promise.all(
        [login.target, second.target].map((target) =>
          evaluate(keeperTwo, target, "1").then(
            () => true,
            () => false,
          ),
        ),
      );
      const { tabs } = await keeperTwo.call("tabs.list", { clientId: "keeper" });
      return !answered.includes(false) && sorted(tabs, "target").join() === [login.target, second.target].sort().join();
    };
    await eventually(listed, RESTORED_WITHIN_MS - (Date.now() - killedAt), "keeper's two tabs restored on another instance");
    const { tabs } = (await keeperTwo.call("tabs.list", { clientId: "keeper" })) as Tabs;
    // (Listed in the order of the instance's own listing in Redis, which need not be the order they were opened in.)
    expect(sorted(tabs, "url")).to.deep.equal([site.url("index.html"), site.url("other.html")].sort());
    expect(await holder("keeper")).to.be.oneOf(["keep-two", "keep-three"]);
    // Still logged in: the HttpOnly session cookie goes with the site's requests, and localStorage holds the user.
    expect((await evaluate(keeperTwo, second.target, "fetch('/cookies').then((r) => r.text())")).value).to.equal("session=s-42");
    expect((await evaluate(keeperTwo, login.target, "localStorage.getItem('user')")).value).to.equal("ann");

    // The client that was not persistent is gone with its instance.
    await eventually(async () => (await otherTwo.call("tabs.list", {})).tabs.length === 0, EVENT_BUDGET_MS, "other's tabs forgotten");
    expect((await otherTwo.call("cookies.get", { clientId: "other" })).cookies).to.deep.equal([]);
    // Nothing of keeper's reaches another client's token, an agent with another key, or a stranger.
    expect((await failure(otherTwo.call("evaluate", { target: login.target, expression: "1" }))).code).to.equal(-32002);
    expect((await failure(otherTwo.call("cookies.get", { clientId: "keeper" }))).code).to.equal(-32007);
    expect((await failure(otherTwo.call("clients.configure", { clientId: "keeper", persistent: false }))).code).to.equal(-32007);
    const wrongKey = await TestAgent.connect({ url: `${hub("keep-two").url}/agent?token=${OTHER_KEY}`, clientId: login.target });
    clients.track(wrongKey);
    expect((await wrongKey.registration()).status).to.equal("rejected");
    const stranger = await fetch(`${httpUrl(hub("keep-two"))}/clients/keeper/tabs`);
    expect(stranger.status).to.equal(401);
    expect(await holder("keeper")).to.be.oneOf(["keep-two", "keep-three"]);
  });

  it("made not persistent through an instance that does not keep it: its state leaves Redis and its keeper lets it go", async () => {
    const keeping = await holder("keeper");
    expect(keeping).to.be.oneOf(["keep-two", "keep-three"]);
    const elsewhere = keeping === "keep-two" ? "keep-three" : "keep-two";
    const keeper = await client(elsewhere, KEEPER);
    expect(await keeper.call("clients.configure", { clientId: "keeper", persistent: false })).to.deep.equal({
      clientId: "keeper",
      persistent: false,
    });
    expect(await reader?.get("tabwire:state:keeper")).to.equal(null);
    // Its keeper finds it removed at its next save and releases it; nothing writes the state back.
    await eventually(async () => (await holder("keeper")) === null, EVENT_BUDGET_MS, "the keeper released the client");
    expect(await reader?.get("tabwire:state:keeper")).to.equal(null);
    expect(Number(await reader?.sIsMember("tabwire:persisted", "keeper"))).to.equal(0);
  });
});
