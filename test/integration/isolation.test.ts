import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { startRefused } from "../support/child-hub.js";
import { collect } from "../support/collect.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "isolation-full-token";
const TOKEN_A = "isolation-token-alpha";
const TOKEN_B = "isolation-token-beta";
const ANY_KEY = "isolation-any-client-key";
const KEY_A = "isolation-alpha-key";

/** What a page of a client sees of its site's state: script-visible cookies, localStorage, and every cookie its requests carry. */
async function siteState(client: TestRpcClient, target: string): Promise<{ cookie: string; stored: string | null; sent: string }> {
  const expression = "({ cookie: document.cookie, stored: localStorage.getItem('secret'), sent: await (await fetch('/cookies')).text() })";
  return (await evaluate<{ value: { cookie: string; stored: string | null; sent: string } }>(client, target, expression)).value;
}

describe("isolation: a browser context per client, bound agents (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let full: TestRpcClient;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: ANY_KEY,
      AGENT_KEYS: `${KEY_A}:alpha`,
      CLIENT_IDLE_MS: "0",
      MAX_TABS_PER_CLIENT: "3",
    });
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

  describe("two clients on one site", () => {
    let betaTab: OpenedTab;
    before(async () => {
      betaTab = await openTab(beta, site.url(`set-cookie?name=sessionB&value=beta-secret`));
      await evaluate(
        beta,
        betaTab.target,
        "document.cookie = 'visibleB=beta-visible; path=/'; localStorage.setItem('secret', 'beta-storage')",
      );
    });
    after(async () => closeTab(full, betaTab.target));

    it("the other client's tab on the same site sees none of its cookies (HttpOnly included) or storage", async () => {
      const alphaTab = await openTab(alpha, site.url("index.html"));
      const localTab = await openTab(full, site.url("index.html"));
      const betaAgain = await openTab(beta, site.url("index.html"));
      try {
        expect(await siteState(alpha, alphaTab.target)).to.deep.equal({ cookie: "", stored: null, sent: "" });
        expect(await siteState(full, localTab.target), "the default client").to.deep.equal({ cookie: "", stored: null, sent: "" });
        // The client's own second tab shares its context: the state is there to be found.
        const own = await siteState(beta, betaAgain.target);
        expect(own).to.deep.include({ cookie: "visibleB=beta-visible", stored: "beta-storage" });
        expect(own.sent).to.include("sessionB=beta-secret");
      } finally {
        await Promise.all([closeTab(full, alphaTab.target), closeTab(full, localTab.target), closeTab(full, betaAgain.target)]);
      }
    });

    it("a popup the page opens belongs to its client: listed for it, hidden from the other, sharing its cookies", async () => {
      await full.call("events.subscribe", { topics: ["tabs"] });
      const opened = collect<{ target: string; clientId: string }>(full, "tab.opened", (all) => all.some((tab) => tab.clientId === "beta"));
      // The opener waits until the popup has loaded its page, so the calls below run on that page.
      const loaded =
        "await new Promise((resolve) => { const ready = () => w.location.href !== 'about:blank' && w.document.readyState === 'complete'; const check = () => (ready() ? resolve() : setTimeout(check, 10)); check(); })";
      await evaluate(beta, betaTab.target, `const w = window.open(${JSON.stringify(site.url("other.html"))}); ${loaded}; 1`);
      const popup = (await opened).find((tab) => tab.clientId === "beta");
      expect(popup?.target).to.match(/^beta:/);
      try {
        const { tabs } = await beta.call<{ tabs: { target: string }[] }>("tabs.list");
        expect(tabs.map((tab) => tab.target)).to.include(popup?.target);
        expect((await rpcFailure(alpha.call("evaluate", { target: String(popup?.target), expression: "document.cookie" }))).code).to.equal(
          -32002,
        );
        expect((await siteState(beta, String(popup?.target))).sent).to.include("sessionB=beta-secret");
      } finally {
        await closeTab(full, String(popup?.target));
      }
    });
  });

  it("a client with no tab and no agent has its context disposed (client.closed), and its next tab starts clean", async () => {
    const watcher = await connect(hub, { token: TOKEN_A });
    try {
      await watcher.call("events.subscribe", { topics: ["clients"] });
      const seen: string[] = [];
      watcher.onNotification((method, params) => seen.push(`${method} ${String(params.clientId)}`));
      // Another client's context comes and goes first: alpha's watcher hears nothing of it.
      const other = await openTab(full, "about:blank", { clientId: "gamma" });
      await closeTab(full, other.target);
      const opened = collect<{ clientId: string }>(watcher, "client.opened", (all) => all.some((c) => c.clientId === "alpha"));
      const first = await openTab(alpha, site.url("set-cookie?name=sessionA&value=first"));
      await opened;
      // An agent of the client keeps the context alive across its tabs (CLIENT_IDLE_MS is 0 on this hub).
      const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY_A}`, clientId: "alpha:worker" });
      expect(await agent.registration()).to.include({ status: "accepted" });
      await closeTab(alpha, first.target);
      const kept = await openTab(alpha, site.url("index.html"));
      expect((await siteState(alpha, kept.target)).sent).to.equal("sessionA=first");
      const closed = collect<{ clientId: string; reason: string }>(watcher, "client.closed", (all) =>
        all.some((c) => c.clientId === "alpha"),
      );
      await agent.close();
      await closeTab(alpha, kept.target);
      expect((await closed).find((c) => c.clientId === "alpha")).to.deep.include({ clientId: "alpha", reason: "idle" });
      expect(seen).to.deep.equal(["client.opened alpha", "client.closed alpha"]);
      const fresh = await openTab(alpha, site.url("index.html"));
      expect((await siteState(alpha, fresh.target)).sent).to.equal("");
      await closeTab(alpha, fresh.target);
    } finally {
      await watcher.close();
    }
  });

  it("MAX_TABS_PER_CLIENT: the next tabs.open is OVERLOADED, and a popup past the limit is closed", async () => {
    const tabs = await Promise.all([1, 2, 3].map(() => openTab(beta, site.url("index.html"))));
    try {
      const refused = await rpcFailure(beta.call("tabs.open", { url: "about:blank" }));
      expect(refused.code).to.equal(-32011);
      expect(refused.message).to.include("MAX_TABS_PER_CLIENT");
      await full.call("events.subscribe", { topics: ["tabs"] });
      const closedPopup = collect<{ target: string }>(full, "tab.closed", (all) => all.some((tab) => tab.target.startsWith("beta:")));
      await evaluate(beta, tabs[0]?.target ?? "", `window.open(${JSON.stringify(site.url("other.html"))}); 1`);
      await closedPopup;
      expect((await beta.call<{ tabs: unknown[] }>("tabs.list")).tabs).to.have.length(3);
      // Another client is not held to beta's count.
      const other = await openTab(alpha, "about:blank");
      await closeTab(alpha, other.target);
    } finally {
      await Promise.all(tabs.map((tab) => closeTab(full, tab.target)));
    }
  });

  describe("agents", () => {
    let betaTab: OpenedTab;
    let localTab: OpenedTab;
    before(async () => {
      betaTab = await openTab(beta, "data:text/html,<title>beta</title>");
      localTab = await openTab(full, "data:text/html,<title>local</title>");
    });
    after(async () => Promise.all([closeTab(full, betaTab.target), closeTab(full, localTab.target)]));

    async function register(key: string | null, clientId: string): Promise<{ status?: unknown; reason?: unknown }> {
      const agent = await TestAgent.connect({ url: key === null ? `${hub.url}/agent` : `${hub.url}/agent?token=${key}`, clientId });
      const ack = (await agent.registration()) as { status?: unknown; reason?: unknown };
      await agent.close();
      return ack;
    }

    it("a key bound to alpha may not register another client, nor take a tab of another client or of the default one", async () => {
      expect(await register(KEY_A, "beta:x")).to.include({ status: "rejected" });
      expect(await register(KEY_A, `alpha:${betaTab.tabId}`)).to.include({ status: "rejected" });
      expect(await register(KEY_A, `alpha:${localTab.tabId}`)).to.include({ status: "rejected" });
      expect(await register(KEY_A, "alpha:own-tab")).to.include({ status: "accepted" });
    });

    it("any key (AUTH_KEY) never takes a tab of another client's context; a stranger with no key registers nothing", async () => {
      const taken = await register(ANY_KEY, `evil:${betaTab.tabId}`);
      expect(taken).to.include({ status: "rejected" });
      expect(String(taken.reason)).to.include("not a tab of client evil");
      expect(await register(null, "beta:x")).to.include({ status: "rejected" });
      const { tabs } = await beta.call<{ tabs: { target: string }[] }>("tabs.list");
      expect(tabs.map((tab) => tab.target)).to.include(betaTab.target);
    });

    it("an unbound key's agent owns an unclaimed default tab only while it is connected", async () => {
      const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${ANY_KEY}`, clientId: `solo:${localTab.tabId}` });
      expect(await agent.registration()).to.include({ status: "accepted" });
      const owned = await full.call<{ tabs: { target: string }[] }>("tabs.list", { clientId: "solo" });
      expect(owned.tabs.map((tab) => tab.target)).to.deep.equal([`solo:${localTab.tabId}`]);
      await full.call("events.subscribe", { topics: ["agents"] });
      const gone = collect<{ target: string }>(full, "agent.disconnected", (all) => all.some((a) => a.target === `solo:${localTab.tabId}`));
      await agent.close();
      await gone;
      const back = await full.call<{ tabs: { target: string }[] }>("tabs.list", { clientId: "local" });
      expect(back.tabs.map((tab) => tab.target)).to.include(localTab.target);
      expect((await full.call<{ tabs: unknown[] }>("tabs.list", { clientId: "solo" })).tabs).to.deep.equal([]);
    });
  });

  describe("start-up refusals", () => {
    it("tokens without an agent key: the hub does not start, naming AUTH_KEY and AGENT_KEYS", async () => {
      const { code, output } = await startRefused({ HUB_TOKEN: FULL });
      expect(code).to.equal(2);
      expect(output).to.match(/AUTH_KEY.*AGENT_KEYS/);
      expect(output).to.not.include(FULL);
    });

    it("a non-loopback HOST without a token: the hub does not start unless ALLOW_OPEN=true", async () => {
      const { code, output } = await startRefused({ HOST: "0.0.0.0" });
      expect(code).to.equal(2);
      expect(output).to.include("ALLOW_OPEN=true");
    });
  });
});
