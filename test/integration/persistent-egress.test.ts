import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { TabwireClient } from "../../src/client/index.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { startCountingServer, type CountingServer } from "../support/egress-fixture.js";
import { eventually } from "../support/eventually.js";
import { failure } from "../support/rpc-client.js";
import { evaluate, openTab } from "../support/tabs.js";

const KEEPER = "persistent-egress-keeper";
const OTHER = "persistent-egress-other";
const NAVIGATION_FAILED = -32012;

/**
 * A persistent client's own egress policy (clients.configure {policy}) is part of what is saved: after a restart its
 * tabs come back behind the same policy, never open, and a saved policy the hub cannot read keeps the client from
 * coming back at all.
 */
describe("a persistent client's own egress policy is saved with it and back before its tabs (real hub, Chromium)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let allowed: CountingServer;
  let other: CountingServer;
  let dataDir: string;
  const open: { close(): Promise<void> }[] = [];
  const hubs: ChildHub[] = [];

  const startHub = async (): Promise<ChildHub> => {
    const hub = await startChildHub({
      DATA_DIR: dataDir,
      HUB_TOKENS: `${KEEPER}:keeper,${OTHER}:other`,
      AGENT_KEYS: "persistent-egress-agent-key:keeper",
      EGRESS_HOSTS: "allowed.test=127.0.0.1,other.test=127.0.0.1",
    });
    hubs.push(hub);
    return hub;
  };
  const client = async (hub: ChildHub, token: string): Promise<TabwireClient> => {
    const connected = await TabwireClient.connect({ url: hub.url, token, reconnect: false });
    open.push(connected);
    return connected;
  };
  const allowedUrl = (where: string): string => `http://allowed.test:${allowed.port}${where}`;
  const otherUrl = (where: string): string => `http://other.test:${other.port}${where}`;
  const fetched = (url: string): string => `fetch(${JSON.stringify(url)}).then((r) => r.status, (e) => 'refused: ' + e.message)`;
  const savedFile = (): string => path.join(dataDir, "persistent", "keeper.json");
  /** The keeper's tabs, once the hub has put them back. */
  const restoredTabs = async (keeper: TabwireClient, count: number): Promise<string[]> => {
    await eventually(async () => (await keeper.call("tabs.list", {})).tabs.length === count, EVENT_BUDGET_MS, "keeper's tabs restored");
    return (await keeper.call("tabs.list", {})).tabs.map((tab) => tab.target);
  };

  before(async () => {
    [allowed, other, dataDir] = await Promise.all([
      startCountingServer(),
      startCountingServer(),
      mkdtemp(path.join(os.tmpdir(), "tabwire-persist-egress-")),
    ]);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((each) => each.close().catch(() => undefined)));
    await Promise.all(hubs.splice(0).map((hub) => hub.stop()));
    await rm(path.join(dataDir, "persistent"), { recursive: true, force: true });
  });
  after(async () => {
    await Promise.all([allowed?.close(), other?.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("killed and started again: the restored tab still reaches only the allowed host, and a policy added later (saved in the call) holds too", async () => {
    const first = await startHub();
    const keeper = await client(first, KEEPER);
    await keeper.call("clients.configure", { clientId: "keeper", policy: { egress: { allow: ["allowed.test"] } } });
    const tab = await openTab(keeper, allowedUrl("/page"), { clientId: "keeper" });
    await keeper.call("clients.configure", { clientId: "keeper", persistent: true });
    // A second policy narrows further: the allowed server's port only (private networks are the first one's to refuse:
    // this one's default would refuse allowed.test's loopback address, as it names no host).
    const second = { egress: { ports: [allowed.port], blockPrivateNetworks: false } };
    const narrowed = await keeper.call("clients.configure", { clientId: "keeper", policy: second });
    expect(narrowed).to.include({ persistent: true, policies: 2 });
    const saved = JSON.parse(await readFile(savedFile(), "utf8")) as { egress?: { policies: unknown[] } };
    expect(saved.egress?.policies, "the policies in the saved state").to.have.length(2);

    // No save at a stop: the state on disk is what the calls wrote.
    first.kill("SIGKILL");
    await first.stop();
    const again = await startHub();
    const keeperAgain = await client(again, KEEPER);
    expect(await restoredTabs(keeperAgain, 1)).to.deep.equal([tab.target]);

    const before = { data: allowed.hits("/data"), other: other.hits() };
    expect((await evaluate(keeperAgain, tab.target, fetched(allowedUrl("/data")))).value).to.equal(200);
    expect((await evaluate(keeperAgain, tab.target, fetched(otherUrl("/data")))).value).to.match(/^refused/);
    // The allowed name on another port (the other server's): only the second policy refuses it.
    expect((await evaluate(keeperAgain, tab.target, fetched(`http://allowed.test:${other.port}/data`))).value).to.match(/^refused/);
    const refused = await failure(keeperAgain.call("navigate", { target: tab.target, url: otherUrl("/page") }));
    expect(refused.code).to.equal(NAVIGATION_FAILED);
    expect(refused.data).to.have.nested.property("policy.host", "other.test");
    expect(allowed.hits("/data")).to.equal(before.data + 1);
    expect(other.hits(), "requests that reached the refused server").to.equal(before.other);

    // Another token learns nothing of the keeper's policy and cannot loosen it.
    const stranger = await client(again, OTHER);
    expect((await failure(stranger.call("clients.configure", { clientId: "keeper", persistent: false }))).code).to.equal(-32007);
    await keeperAgain.call("clients.configure", { clientId: "keeper", persistent: false });
  });

  it("a saved state whose policy this hub cannot read is not restored: no tab comes back open, and the hub says why", async () => {
    const first = await startHub();
    const keeper = await client(first, KEEPER);
    await keeper.call("clients.configure", { clientId: "keeper", policy: { egress: { allow: ["allowed.test"] } } });
    await openTab(keeper, allowedUrl("/page"), { clientId: "keeper" });
    await keeper.call("clients.configure", { clientId: "keeper", persistent: true });
    await first.stop();

    const saved = JSON.parse(await readFile(savedFile(), "utf8")) as { egress: { policies: { egress: { allow: string[] } }[] } };
    expect(saved.egress.policies[0]?.egress.allow).to.deep.equal(["allowed.test"]);
    (saved.egress.policies[0] as { egress: { allow: string[] } }).egress.allow = ["not a host name!"];
    await writeFile(savedFile(), JSON.stringify(saved), { mode: 0o600 });

    const hits = allowed.hits("/page");
    const again = await startHub();
    await eventually(
      () => Promise.resolve(again.output().includes("cannot restore a persistent client")),
      EVENT_BUDGET_MS,
      "the hub's word",
    );
    expect(again.output()).to.include("its saved egress policy cannot be put back");
    const keeperAgain = await client(again, KEEPER);
    expect((await keeperAgain.call("tabs.list", {})).tabs).to.deep.equal([]);
    expect(allowed.hits("/page"), "no restored tab loaded its page").to.equal(hits);
  });
});
