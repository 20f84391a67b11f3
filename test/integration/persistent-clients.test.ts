import { existsSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { TabwireClient } from "../../src/client/index.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { failure } from "../support/rpc-client.js";
import { collect } from "../support/collect.js";
import { evaluate, openTab } from "../support/tabs.js";
import { startTestHub } from "../support/test-hub.js";
import type { Hub } from "../../src/hub.js";

const FULL = "full-token-persistent-1";
const KEEPER = "keeper-token-persistent";
const OTHER = "other-token-persistent";
const KEEPER_KEY = "keeper-agent-key-persist";
const OTHER_KEY = "other-agent-key-persist";

describe("persistent clients (clients.configure) on the embedded Chrome", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let fixtures: FixtureServer;
  let dataDir: string;
  const open: { close(): Promise<void> }[] = [];
  const hubs: ChildHub[] = [];

  const startHub = async (extra: Record<string, string> = {}): Promise<ChildHub> => {
    const hub = await startChildHub({
      DATA_DIR: dataDir,
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${KEEPER}:keeper,${OTHER}:other`,
      AGENT_KEYS: `${KEEPER_KEY}:keeper,${OTHER_KEY}:other`,
      ...extra,
    });
    hubs.push(hub);
    return hub;
  };
  const client = async (hub: ChildHub, token: string): Promise<TabwireClient> => {
    const connected = await TabwireClient.connect({ url: hub.url, token, reconnect: false });
    open.push(connected);
    return connected;
  };
  const savedFile = (clientId: string): string => path.join(dataDir, "persistent", `${clientId}.json`);

  before(async () => {
    [fixtures, dataDir] = await Promise.all([startFixtureServer(), mkdtemp(path.join(os.tmpdir(), "tabwire-persist-"))]);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((each) => each.close().catch(() => undefined)));
    await Promise.all(hubs.splice(0).map((hub) => hub.stop()));
    // What one test saved is not the next one's start, even when it failed before making its client not persistent.
    await rm(path.join(dataDir, "persistent"), { recursive: true, force: true });
  });
  after(async () => {
    await fixtures?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("killed and started with the same DATA_DIR: the logged-in client's two tabs are back under their targets; another client's state is gone", async () => {
    const first = await startHub();
    const keeper = await client(first, KEEPER);
    const other = await client(first, OTHER);
    // Logged in: an HttpOnly session cookie from the site, and what its script keeps in localStorage.
    const login = await openTab(keeper, fixtures.url("set-cookie?name=session&value=s-42"), { clientId: "keeper" });
    await keeper.call("navigate", { target: login.target, url: fixtures.url("index.html") });
    await evaluate(keeper, login.target, "localStorage.setItem('user', 'ann')");
    const second = await openTab(keeper, fixtures.url("other.html"), { clientId: "keeper" });
    await openTab(other, fixtures.url("set-cookie?name=session&value=other-1"), { clientId: "other" });

    // Another client's token, a stranger: neither makes keeper persistent nor reads anything of it.
    expect((await failure(other.call("clients.configure", { clientId: "keeper", persistent: true }))).code).to.equal(-32007);
    const stranger = await fetch(`${first.url.replace(/^ws/, "http")}/clients/keeper/tabs`).then((r) => r.status);
    expect(stranger).to.equal(401);
    expect(existsSync(savedFile("keeper"))).to.equal(false);

    const configured = await keeper.call("clients.configure", { clientId: "keeper", persistent: true });
    expect(configured).to.include({ clientId: "keeper", persistent: true });
    expect((await stat(savedFile("keeper"))).mode & 0o777).to.equal(0o600);

    process.kill(first.pid, "SIGKILL");
    await first.stop();
    const again = await startHub();
    const keeperAgain = await client(again, KEEPER);
    const otherAgain = await client(again, OTHER);
    await eventually(async () => (await keeperAgain.call("tabs.list", {})).tabs.length === 2, EVENT_BUDGET_MS, "keeper's tabs restored");
    const { tabs } = await keeperAgain.call("tabs.list", {});
    expect(tabs.map((tab) => [tab.target, tab.url])).to.deep.equal([
      [login.target, fixtures.url("index.html")],
      [second.target, fixtures.url("other.html")],
    ]);
    // Still logged in: the session cookie goes with the site's requests, and localStorage holds the user.
    const sent = await evaluate(keeperAgain, second.target, "fetch('/cookies').then((r) => r.text())");
    expect(sent.value).to.equal("session=s-42");
    expect((await evaluate(keeperAgain, login.target, "localStorage.getItem('user')")).value).to.equal("ann");

    // The client that was not persistent starts afresh.
    expect((await otherAgain.call("tabs.list", {})).tabs).to.deep.equal([]);
    expect((await otherAgain.call("cookies.get", { clientId: "other" })).cookies).to.deep.equal([]);
    // Nothing of keeper's reaches another client's token or an agent with another key.
    expect((await failure(otherAgain.call("evaluate", { target: login.target, expression: "1" }))).code).to.equal(-32002);
    expect((await failure(otherAgain.call("cookies.get", { clientId: "keeper" }))).code).to.equal(-32007);
    expect((await failure(otherAgain.call("clients.configure", { clientId: "keeper", persistent: false }))).code).to.equal(-32007);
    const wrongKey = await TestAgent.connect({ url: `${again.url}/agent?token=${OTHER_KEY}`, clientId: login.target });
    open.push(wrongKey);
    expect((await wrongKey.registration()).status).to.equal("rejected");
    const otherAgent = await TestAgent.connect({ url: `${again.url}/agent?token=${OTHER_KEY}`, clientId: "other:t1" });
    open.push(otherAgent);
    expect((await otherAgent.registration()).status).to.equal("accepted");
    for (const [method, params] of [
      ["clients.configure", { clientId: "keeper", persistent: false }],
      ["state.export", { clientId: "keeper" }],
      ["evaluate", { target: login.target, expression: "localStorage.getItem('user')" }],
    ] as const) {
      const refused = (await otherAgent.call(method, params).catch((error: { code: number }) => error)) as { code: number };
      expect(refused.code, method).to.be.oneOf([-32007, -32002]);
    }
    expect(existsSync(savedFile("keeper"))).to.equal(true);

    // Not persistent any more: the saved state goes at once.
    expect(await keeperAgain.call("clients.configure", { clientId: "keeper", persistent: false })).to.deep.equal({
      clientId: "keeper",
      persistent: false,
    });
    expect(existsSync(savedFile("keeper"))).to.equal(false);
  });

  it("stopped (SIGTERM): what changed after clients.configure is saved at the stop and back after the start", async () => {
    const first = await startHub();
    const keeper = await client(first, KEEPER);
    const tab = await openTab(keeper, fixtures.url("index.html"), { clientId: "keeper" });
    await keeper.call("clients.configure", { clientId: "keeper", persistent: true });
    await keeper.call("navigate", { target: tab.target, url: fixtures.url("other.html") });
    await evaluate(keeper, tab.target, "localStorage.setItem('step', 'two')");
    const later = await openTab(keeper, fixtures.url("inner.html"), { clientId: "keeper" });

    await first.stop();
    const again = await startHub();
    const keeperAgain = await client(again, KEEPER);
    await eventually(async () => (await keeperAgain.call("tabs.list", {})).tabs.length === 2, EVENT_BUDGET_MS, "keeper's tabs restored");
    const { tabs } = await keeperAgain.call("tabs.list", {});
    expect(tabs.map((each) => [each.target, each.url])).to.deep.equal([
      [tab.target, fixtures.url("other.html")],
      [later.target, fixtures.url("inner.html")],
    ]);
    expect((await evaluate(keeperAgain, tab.target, "localStorage.getItem('step')")).value).to.equal("two");
    await keeperAgain.call("clients.configure", { clientId: "keeper", persistent: false });
  });

  it("a state larger than MAX_PERSISTED_BYTES is refused with OVERLOADED and nothing is saved", async () => {
    const hub = await startHub({ MAX_PERSISTED_BYTES: "4096" });
    const keeper = await client(hub, KEEPER);
    const tab = await openTab(keeper, fixtures.url("index.html"), { clientId: "keeper" });
    await evaluate(keeper, tab.target, "localStorage.setItem('big', 'x'.repeat(8000))");
    const refused = await failure(keeper.call("clients.configure", { clientId: "keeper", persistent: true }));
    expect(refused.code).to.equal(-32011);
    expect(refused.message).to.include("MAX_PERSISTED_BYTES");
    expect(refused.data).to.include({ maxBytes: 4096 });
    expect(existsSync(savedFile("keeper"))).to.equal(false);
  });
});

describe("persistent clients when the embedded Chrome dies under a running hub", function () {
  this.timeout(2 * EVENT_BUDGET_MS);
  let hub: Hub;
  let fixtures: FixtureServer;
  let dataDir: string;
  let watcher: TabwireClient;
  let stranger: TabwireClient;

  before(async () => {
    [fixtures, dataDir] = await Promise.all([startFixtureServer(), mkdtemp(path.join(os.tmpdir(), "tabwire-persist-crash-"))]);
    hub = await startTestHub({ DATA_DIR: dataDir, HUB_TOKEN: FULL, HUB_TOKENS: `${OTHER}:other`, AUTH_KEY: KEEPER_KEY });
    watcher = await TabwireClient.connect({ url: hub.url, token: FULL, reconnect: false });
    stranger = await TabwireClient.connect({ url: hub.url, token: OTHER, reconnect: false });
  });
  after(async () => {
    await Promise.all([watcher?.close(), stranger?.close()]);
    await hub?.stop();
    await fixtures?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("its tabs come back at their URLs under their targets, told by tab.restored to the subscribers who may see it only", async () => {
    const tab = await openTab(watcher, fixtures.url("set-cookie?name=session&value=crash-1"), { clientId: "keeper" });
    // Reopened at index.html, the tab is logged in only if the saved cookie came back.
    await watcher.call("navigate", { target: tab.target, url: fixtures.url("index.html") });
    await watcher.call("clients.configure", { clientId: "keeper", persistent: true });
    await Promise.all([watcher, stranger].map((each) => each.call("events.subscribe", { topics: ["tabs"] })));
    const strangerRestored: unknown[] = [];
    stranger.on("tab.restored", (params) => strangerRestored.push(params));
    const restored = collect(watcher, "tab.restored", { done: (all) => all.length >= 1, timeoutMs: EVENT_BUDGET_MS });

    process.kill(hub.services.browser.pid as number, "SIGKILL");
    const [notice] = await restored;
    expect(notice).to.include({ target: tab.target, clientId: "keeper", url: fixtures.url("index.html") });
    expect(notice?.tabId).to.not.equal(tab.tabId);
    const { tabs } = await watcher.call("tabs.list", { clientId: "keeper" });
    expect(tabs.map((each) => [each.target, each.tabId])).to.deep.equal([[tab.target, notice?.tabId]]);
    const sent = await evaluate(watcher, tab.target, "fetch('/cookies').then((r) => r.text())");
    expect(sent.value).to.equal("session=crash-1");
    expect((await failure(stranger.call("evaluate", { target: tab.target, expression: "1" }))).code).to.equal(-32002);
    expect(strangerRestored).to.deep.equal([]);
    await watcher.call("clients.configure", { clientId: "keeper", persistent: false });
  });
});
