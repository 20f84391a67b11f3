import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { TabwireClient } from "../../src/client/index.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { READ_SHOP, SHOP_AFTER_JSON, WRITE_SHOP } from "../support/indexed-db.js";
import { failure } from "../support/rpc-client.js";
import { evaluate, openTab } from "../support/tabs.js";

const FULL = "full-token-persist-idb";
const KEEPER = "keeper-token-persist-idb";
const OTHER = "other-token-persist-idb";

describe("persistent clients keep their IndexedDB (clients.configure, real hub and Chromium)", function () {
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
      AUTH_KEY: "agent-key-persist-idb",
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
  const restoredTabs = async (keeper: TabwireClient, count: number): Promise<void> => {
    await eventually(async () => (await keeper.call("tabs.list", {})).tabs.length === count, EVENT_BUDGET_MS, "keeper's tabs restored");
  };

  before(async () => {
    [fixtures, dataDir] = await Promise.all([startFixtureServer(), mkdtemp(path.join(os.tmpdir(), "tabwire-persist-idb-"))]);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((each) => each.close().catch(() => undefined)));
    await Promise.all(hubs.splice(0).map((hub) => hub.stop()));
    await rm(path.join(dataDir, "persistent"), { recursive: true, force: true });
  });
  after(async () => {
    await fixtures?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("killed and started again: the database is back, with its version, stores, indexes and JSON records, before the restored page's script runs; another client's is gone and never reaches keeper", async () => {
    const first = await startHub();
    const keeper = await client(first, KEEPER);
    const other = await client(first, OTHER);
    const tab = await openTab(keeper, fixtures.url("indexed-db.html"), { clientId: "keeper" });
    expect((await evaluate(keeper, tab.target, WRITE_SHOP)).value).to.equal("written");
    const before = (await evaluate(keeper, tab.target, READ_SHOP)).value as { stores: Record<string, { keys: unknown[] }> };
    // The page holds what JSON cannot carry too: a Date value, bytes, a binary key.
    expect(before.stores.items?.keys).to.deep.equal([1, 2, 3]);
    expect(before.stores.settings?.keys).to.deep.equal(["bytes", "theme", "ArrayBuffer", ["layout", 2]]);
    const otherTab = await openTab(other, fixtures.url("indexed-db.html"), { clientId: "other" });
    await evaluate(
      other,
      otherTab.target,
      "new Promise((resolve) => { indexedDB.open('others', 1).onsuccess = (event) => { event.target.result.close(); resolve(1); }; })",
    );
    // Another client's token makes keeper neither persistent nor gets its databases.
    expect((await failure(other.call("clients.configure", { clientId: "keeper", persistent: true }))).code).to.equal(-32007);
    expect((await failure(other.call("state.export", { clientId: "keeper", indexedDB: true }))).code).to.equal(-32007);

    await keeper.call("clients.configure", { clientId: "keeper", persistent: true });
    process.kill(first.pid, "SIGKILL");
    await first.stop();

    const again = await startHub();
    const keeperAgain = await client(again, KEEPER);
    const otherAgain = await client(again, OTHER);
    await restoredTabs(keeperAgain, 1);
    expect((await evaluate(keeperAgain, tab.target, READ_SHOP)).value).to.deep.equal(SHOP_AFTER_JSON);
    // Written before the restored tab loaded: its page's own script found the database at once.
    expect((await evaluate(keeperAgain, tab.target, "window.databasesAtLoad")).value).to.deep.equal([["shop", 3]]);

    // The client that was not persistent starts afresh; keeper's database is not in its context either.
    const otherAgainTab = await openTab(otherAgain, fixtures.url("indexed-db.html"), { clientId: "other" });
    expect((await evaluate(otherAgain, otherAgainTab.target, READ_SHOP)).value).to.deep.equal({ listed: [] });
    expect((await failure(otherAgain.call("evaluate", { target: tab.target, expression: READ_SHOP }))).code).to.equal(-32002);
    expect((await failure(otherAgain.call("state.export", { clientId: "keeper", indexedDB: true }))).code).to.equal(-32007);
    expect(await readFile(savedFile("keeper"), "utf8")).to.include('"indexedDB"');
    await keeperAgain.call("clients.configure", { clientId: "keeper", persistent: false });
    expect(existsSync(savedFile("keeper"))).to.equal(false);
  });

  it("a database larger than MAX_PERSISTED_BYTES is refused with OVERLOADED and nothing is saved", async () => {
    const hub = await startHub({ MAX_PERSISTED_BYTES: "4096" });
    const keeper = await client(hub, KEEPER);
    const tab = await openTab(keeper, fixtures.url("indexed-db.html"), { clientId: "keeper" });
    const write = `new Promise((resolve) => {
      const opening = indexedDB.open("big", 1);
      opening.onupgradeneeded = () => opening.result.createObjectStore("blobs");
      opening.onsuccess = () => {
        const transaction = opening.result.transaction("blobs", "readwrite");
        transaction.objectStore("blobs").put("x".repeat(8000), "one");
        transaction.oncomplete = () => resolve("written");
      };
    })`;
    expect((await evaluate(keeper, tab.target, write)).value).to.equal("written");
    const refused = await failure(keeper.call("clients.configure", { clientId: "keeper", persistent: true }));
    expect(refused.code).to.equal(-32011);
    expect(refused.message).to.include("MAX_PERSISTED_BYTES");
    expect(refused.data).to.include({ maxBytes: 4096 });
    expect(existsSync(savedFile("keeper"))).to.equal(false);
  });

  it("a file saved before IndexedDB was kept (no indexedDB in it) still puts the client back", async () => {
    const tabId = "0123456789ABCDEF0123456789ABCDEF";
    const older = {
      version: 1,
      clientId: "keeper",
      savedAt: Date.now(),
      state: { cookies: [], origins: [{ origin: fixtures.origin, localStorage: [{ name: "user", value: "ann" }] }] },
      tabs: [{ tabId, url: fixtures.url("indexed-db.html"), title: "IndexedDB fixture" }],
    };
    await mkdir(path.join(dataDir, "persistent"), { recursive: true });
    await writeFile(savedFile("keeper"), JSON.stringify(older), { mode: 0o600 });
    const hub = await startHub();
    const keeper = await client(hub, KEEPER);
    await restoredTabs(keeper, 1);
    expect((await evaluate(keeper, `keeper:${tabId}`, "localStorage.getItem('user')")).value).to.equal("ann");
    expect((await evaluate(keeper, `keeper:${tabId}`, "window.databasesAtLoad")).value).to.deep.equal([]);
    await keeper.call("clients.configure", { clientId: "keeper", persistent: false });
  });
});
