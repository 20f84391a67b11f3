import { expect } from "chai";
import type { Cookie, IndexedDatabase } from "../../src/protocol/types.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { READ_SHOP, SHOP_AFTER_JSON, WRITE_SHOP } from "../support/indexed-db.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "state-full-token";
const TOKEN_A = "state-token-alpha";
const TOKEN_B = "state-token-beta";

interface State {
  cookies: { name: string; value: string; domain: string; httpOnly: boolean; sameSite: string; expires: number }[];
  origins: { origin: string; localStorage: { name: string; value: string }[]; indexedDB?: IndexedDatabase[] }[];
}

describe("cookies.set, cookies.clear, state.export, state.import and pdf, each per client (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let full: TestRpcClient;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({ HUB_TOKEN: FULL, HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`, AUTH_KEY: "state-agent-key" });
    [full, alpha, beta] = await Promise.all([
      connect(hub, { token: FULL }),
      connect(hub, { token: TOKEN_A }),
      connect(hub, { token: TOKEN_B }),
    ]);
  });
  after(async () => {
    await Promise.all([full?.close(), alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  /** What the fixture server got in the Cookie header of a page load in a new tab of the caller's client. */
  async function cookieHeaderSeenBy(client: TestRpcClient, clientId?: string): Promise<string> {
    const tab = await openTab(client, site.url("cookies"), clientId === undefined ? {} : { clientId });
    try {
      return (await evaluate<{ value: string }>(client, tab.target, "document.body.innerText")).value;
    } finally {
      await closeTab(client, tab.target);
    }
  }

  it("cookies.set puts an HttpOnly cookie into the client's context: its pages send it, the page's script cannot read it, beta never sees it", async () => {
    const answer = await alpha.call("cookies.set", {
      cookies: [{ name: "token", value: "set-by-hub", url: site.url(""), httpOnly: true }],
    });
    expect(answer).to.deep.equal({ set: 1 });
    expect(await cookieHeaderSeenBy(alpha)).to.include("token=set-by-hub");
    const tab = await openTab(alpha, site.url("index.html"));
    expect((await evaluate<{ value: string }>(alpha, tab.target, "document.cookie")).value).to.not.include("token");
    await closeTab(alpha, tab.target);
    expect(await cookieHeaderSeenBy(beta)).to.not.include("token=set-by-hub");
    const { cookies } = (await beta.call("cookies.get", {})) as { cookies: Cookie[] };
    expect(cookies.map((cookie) => cookie.name)).to.not.include("token");
  });

  it("cookies.set without url or domain, and a cookie Chrome refuses, are INVALID_PARAMS; another client's is FORBIDDEN", async () => {
    const missing = await rpcFailure(alpha.call("cookies.set", { cookies: [{ name: "a", value: "b" }] }));
    expect(missing.code).to.equal(-32602);
    expect(missing.message).to.match(/url, or domain/);
    const refused = await rpcFailure(alpha.call("cookies.set", { cookies: [{ name: "a", value: "b", url: "not a url" }] }));
    expect(refused.code).to.equal(-32602);
    const foreign = await rpcFailure(
      beta.call("cookies.set", { clientId: "alpha", cookies: [{ name: "x", value: "y", url: site.url("") }] }),
    );
    expect(foreign.code).to.equal(-32007);
  });

  it("cookies.clear with urls removes only the cookies sent there; without, all; beta cannot clear alpha's", async () => {
    await alpha.call("cookies.set", {
      cookies: [
        { name: "here", value: "1", url: site.url("") },
        { name: "elsewhere", value: "2", domain: "elsewhere.example", path: "/" },
      ],
    });
    await rpcFailure(beta.call("cookies.clear", { clientId: "alpha" }));
    const partial = (await alpha.call("cookies.clear", { urls: [site.url("")] })) as { cleared: number };
    expect(partial.cleared).to.be.at.least(1);
    let { cookies } = (await alpha.call("cookies.get", {})) as { cookies: Cookie[] };
    expect(cookies.map((cookie) => cookie.name)).to.deep.equal(["elsewhere"]);
    expect(await alpha.call("cookies.clear", {})).to.deep.equal({ cleared: 1 });
    ({ cookies } = (await alpha.call("cookies.get", {})) as { cookies: Cookie[] });
    expect(cookies).to.deep.equal([]);
  });

  it("log in, state.export, state.import into a new client: the site sees it logged in and its localStorage is there, without logging in again", async () => {
    const login = await openTab(full, site.url("set-cookie?name=session&value=logged-in-user"), { clientId: "carol" });
    await full.call("navigate", { target: login.target, url: site.url("index.html") });
    await evaluate(full, login.target, "localStorage.setItem('cart', '[12,40]')");
    const state = (await full.call("state.export", { clientId: "carol" })) as State;
    const session = state.cookies.find((cookie) => cookie.name === "session");
    expect(session).to.include({ value: "logged-in-user", httpOnly: true, expires: -1 });
    expect(session?.sameSite).to.be.oneOf(["Strict", "Lax", "None"]);
    const origin = new URL(site.url("")).origin;
    expect(state.origins).to.deep.equal([{ origin, localStorage: [{ name: "cart", value: "[12,40]" }] }]);
    await closeTab(full, login.target);

    expect(await full.call("state.import", { clientId: "dave", state })).to.deep.equal({ cookies: state.cookies.length, origins: 1 });
    expect(await cookieHeaderSeenBy(full, "dave")).to.include("session=logged-in-user");
    const page = await openTab(full, site.url("index.html"), { clientId: "dave" });
    expect((await evaluate<{ value: string }>(full, page.target, "localStorage.getItem('cart')")).value).to.equal("[12,40]");
    await closeTab(full, page.target);
    // No one else got them.
    expect(await cookieHeaderSeenBy(full, "erin")).to.not.include("session=");
    const foreign = await rpcFailure(beta.call("state.export", { clientId: "carol" }));
    expect(foreign.code).to.equal(-32007);
  });

  it("state.import leaves no tab behind: the page it writes each origin's localStorage from is gone from the client's tabs", async () => {
    // The hub writes localStorage from a blank page it opens and closes at once; the page's title report made the hub
    // ask Chrome about it as it closed, and the late answer listed a page Chrome no longer had, for good.
    const origins = [1, 2, 3].map((n) => ({
      origin: `http://origin-${n}.localhost:${new URL(site.url("")).port}`,
      localStorage: [{ name: "n", value: `${n}` }],
    }));
    for (let round = 0; round < 10; round++) {
      expect(await full.call("state.import", { clientId: "frank", state: { cookies: [], origins } })).to.deep.equal({
        cookies: 0,
        origins: 3,
      });
      // A round trip on the hub's browser connection: any answer Chrome gave before it has been read.
      await full.call("cookies.get", { clientId: "frank" });
      expect(((await full.call("tabs.list", { clientId: "frank" })) as { tabs: unknown[] }).tabs, `round ${round}`).to.deep.equal([]);
    }
  });

  it("state.export with indexedDB: true and state.import carry an origin's IndexedDB to a new client; a database its stores refuse is INVALID_PARAMS; beta gets none of it", async () => {
    const tab = await openTab(full, site.url("indexed-db.html"), { clientId: "grace" });
    expect((await evaluate<{ value: string }>(full, tab.target, WRITE_SHOP)).value).to.equal("written");
    const origin = new URL(site.url("")).origin;
    // Without indexedDB the document is as before: the origin has nothing else stored, so it is not there.
    expect(((await full.call("state.export", { clientId: "grace" })) as State).origins).to.deep.equal([]);
    const state = (await full.call("state.export", { clientId: "grace", indexedDB: true })) as State;
    expect(state.origins.map((each) => [each.origin, each.indexedDB?.map((db) => [db.name, db.version])])).to.deep.equal([
      [origin, [["shop", 3]]],
    ]);
    expect((await rpcFailure(beta.call("state.export", { clientId: "grace", indexedDB: true }))).code).to.equal(-32007);
    await closeTab(full, tab.target);

    expect(await full.call("state.import", { clientId: "heidi", state })).to.deep.equal({ cookies: 0, origins: 1 });
    const page = await openTab(full, site.url("indexed-db.html"), { clientId: "heidi" });
    expect((await evaluate<{ value: unknown }>(full, page.target, READ_SHOP)).value).to.deep.equal(SHOP_AFTER_JSON);
    // A tab that keeps the database open through a versionchange: the import replaces it all the same, closing the
    // tab's connection, as clearing site data does.
    const hold = `new Promise((resolve) => {
      indexedDB.open("shop").onsuccess = (event) => {
        window.held = event.target.result;
        window.held.onclose = () => { window.heldClosed = true; };
        resolve("held");
      };
    })`;
    expect((await evaluate<{ value: string }>(full, page.target, hold)).value).to.equal("held");
    expect(await full.call("state.import", { clientId: "heidi", state })).to.deep.equal({ cookies: 0, origins: 1 });
    expect((await evaluate<{ value: boolean }>(full, page.target, "window.heldClosed")).value).to.equal(true);
    expect((await evaluate<{ value: unknown }>(full, page.target, READ_SHOP)).value).to.deep.equal(SHOP_AFTER_JSON);
    await closeTab(full, page.target);

    // Two records with one name break the unique index: the database is named, and the client is told what to fix.
    const database = state.origins[0]?.indexedDB?.[0];
    const items = database?.stores.find((store) => store.name === "items");
    const twin = { ...(items?.records[0]?.value as object), id: 9 };
    const broken = {
      ...database,
      stores: database?.stores.map((store) => (store === items ? { ...store, records: [...store.records, { value: twin }] } : store)),
    };
    const refused = await rpcFailure(
      full.call("state.import", {
        clientId: "heidi",
        state: { cookies: [], origins: [{ origin, localStorage: [], indexedDB: [broken] }] },
      }),
    );
    expect(refused.code).to.equal(-32602);
    expect(refused.message).to.include('"shop"').and.include("ConstraintError");
    expect(refused.data).to.deep.include({
      errors: [{ path: "/state/origins/0/indexedDB/0", message: refused.message.slice(refused.message.indexOf("cannot")) }],
    });
    // Not written whole, it is not made at all: heidi's database of that name is gone, not half there.
    const after = await openTab(full, site.url("indexed-db.html"), { clientId: "heidi" });
    expect((await evaluate<{ value: unknown }>(full, after.target, READ_SHOP)).value).to.deep.equal({ listed: [] });
    await closeTab(full, after.target);
    const alone = await openTab(beta, site.url("indexed-db.html"));
    expect((await evaluate<{ value: unknown }>(beta, alone.target, READ_SHOP)).value).to.deep.equal({ listed: [] });
    await closeTab(beta, alone.target);
  });

  it("pdf prints the tab to a PDF that starts with %PDF-; a scoped token gets nothing of another client's tab", async () => {
    const tab = await openTab(alpha, site.url("form.html"));
    try {
      const printed = (await alpha.call("pdf", { target: tab.target, format: "A4", printBackground: true })) as {
        data: string;
        bytes: number;
      };
      const bytes = Buffer.from(printed.data, "base64");
      expect(bytes.subarray(0, 5).toString("latin1")).to.equal("%PDF-");
      expect(printed.bytes).to.equal(bytes.length);
      // Two prints of one tab at once both come back (Chrome left a second concurrent print waiting for ever).
      const both = (await Promise.all([1, 2].map(() => alpha.call("pdf", { target: tab.target, timeoutMs: 15_000 })))) as {
        data: string;
      }[];
      for (const each of both) expect(Buffer.from(each.data, "base64").subarray(0, 5).toString("latin1")).to.equal("%PDF-");
      const foreign = await rpcFailure(beta.call("pdf", { target: tab.target }));
      expect(foreign.message).to.match(/no tab|not found/i);
    } finally {
      await closeTab(alpha, tab.target);
    }
  });
});
