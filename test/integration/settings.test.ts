import { expect } from "chai";
import { Budget } from "../../src/budget.js";
import { launchChromeWithPort, type PortChrome } from "../../src/cdp/chrome-launcher.js";
import type { TabwireClient, TabwireError } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { failure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connectClient, requireChromium, startTestHub } from "../support/test-hub.js";

describe("hub settings (real hub, real Chromium)", function () {
  this.timeout(40_000);

  describe("MAX_SESSIONS and DIALOG_POLICY=accept", () => {
    let hub: Hub;
    let client: TabwireClient;
    before(async () => {
      hub = await startTestHub({ MAX_SESSIONS: "2", DIALOG_POLICY: "accept" });
      client = await connectClient(hub);
    });
    after(async () => {
      await client.close();
      await hub.stop();
    });

    it("keeps at most MAX_SESSIONS sessions, re-attaching a recycled tab when it is used again", async () => {
      const tabs = await Promise.all([1, 2, 3].map((n) => openTab(client, `data:text/html,<title>t${n}</title>`)));
      try {
        for (const tab of [...tabs, ...tabs]) {
          expect((await evaluate(client, tab.target, "document.title")).value).to.equal(`t${tabs.indexOf(tab) + 1}`);
          expect(hub.services.pool.stats().live).to.be.at.most(2);
        }
      } finally {
        for (const tab of tabs) await closeTab(client, tab.target);
      }
    });

    it("answers dialogs by accepting them", async () => {
      const tab = await openTab(client);
      try {
        expect(await evaluate(client, tab.target, "confirm('sure?')")).to.deep.equal({ type: "boolean", value: true });
      } finally {
        await closeTab(client, tab.target);
      }
    });

    it("a tab that crashes during a call answers TARGET_CLOSED, and other tabs keep working", async () => {
      const doomed = await openTab(client);
      const other = await openTab(client);
      try {
        const pending = evaluate(client, doomed.target, { expression: "new Promise(() => {})", timeoutMs: 10_000 }).catch(
          (e: TabwireError) => e,
        );
        await evaluate(client, doomed.target, "1");
        const budget = new Budget(5_000);
        const tab = await hub.services.pool.acquire(doomed.tabId, budget);
        tab.send("Page.crash").catch(() => undefined);
        budget.dispose();
        expect(((await pending) as TabwireError).code).to.equal(-32003);
        expect((await evaluate(client, other.target, "2 + 2")).value).to.equal(4);
      } finally {
        await closeTab(client, doomed.target);
        await closeTab(client, other.target);
      }
    });
  });

  describe("CDP_URL: a Chrome the user runs", () => {
    let chrome: PortChrome;
    before(async () => {
      requireChromium();
      chrome = await launchChromeWithPort(process.env.CHROME_PATH ?? "/usr/bin/chromium", []);
    });
    after(async () => chrome.kill());

    for (const form of ["http", "ws"] as const) {
      it(`is reached through its ${form === "http" ? "http /json/version" : "ws"} address, and left running when the hub stops`, async () => {
        const cdpUrl = form === "ws" ? chrome.wsUrl : `http://${new URL(chrome.wsUrl).host}`;
        const hub = await startTestHub({ CDP_URL: cdpUrl });
        const client = await connectClient(hub);
        try {
          expect(hub.services.browser.pid).to.equal(null);
          const tab = await openTab(client, "data:text/html,<title>external</title>");
          expect((await evaluate(client, tab.target, "document.title")).value).to.equal("external");
          await closeTab(client, tab.target);
        } finally {
          await client.close();
          await hub.stop();
        }
        expect(chrome.process.exitCode).to.equal(null);
      });
    }

    describe("its debugging address is off limits to tenants", () => {
      let hub: Hub;
      let client: TabwireClient;
      let fixtures: FixtureServer;
      let port: string;
      before(async () => {
        port = new URL(chrome.wsUrl).port;
        [hub, fixtures] = await Promise.all([startTestHub({ CDP_URL: `http://127.0.0.1:${port}` }), startFixtureServer()]);
        client = await connectClient(hub);
      });
      after(async () => {
        await client.close();
        await Promise.all([hub.stop(), fixtures.close()]);
      });

      it("tabs.open of /json/list, /json/new or /json/close under any name of the machine answers FORBIDDEN, and no tab opens", async () => {
        const before = (await client.call("tabs.list", {})).tabs.length;
        for (const url of [
          `http://127.0.0.1:${port}/json/list`,
          `http://localhost:${port}/json/new?file:///etc/hostname`,
          `http://[::1]:${port}/json/list`,
          `http://127.1:${port}/json/version`,
          `http://LOCALHOST.:${port}/json/close/x`,
          `http://0.0.0.0:${port}/json/list`,
        ]) {
          const refused = await failure(client.call("tabs.open", { url }));
          expect(refused.code, url).to.equal(-32007);
          expect(refused.message).to.include("CDP_URL");
        }
        expect((await client.call("tabs.list", {})).tabs.length).to.equal(before);
      });

      it("navigate there answers FORBIDDEN and the tab stays where it was; another port of the machine still opens", async () => {
        const tab = await openTab(client, fixtures.url("index.html"));
        try {
          const refused = await failure(client.call("navigate", { target: tab.target, url: `http://localhost:${port}/json/list` }));
          expect(refused.code).to.equal(-32007);
          expect((await evaluate(client, tab.target, "location.href")).value).to.equal(fixtures.url("index.html"));
          await client.call("navigate", { target: tab.target, url: `http://localhost:${new URL(fixtures.origin).port}/index.html` });
          expect((await evaluate(client, tab.target, "location.port")).value).to.equal(new URL(fixtures.origin).port);
        } finally {
          await closeTab(client, tab.target);
        }
      });
    });
  });
});
