import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "emulate-full-token";
const TOKEN_A = "emulate-token-alpha";
const TOKEN_B = "emulate-token-beta";

describe("emulate and network.conditions: a tab made another device, place or network, and no other tab (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    // Two pooled sessions at most: a third tab's use replaces the least recently used session.
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: "emulate-agent-key",
      MAX_SESSIONS: "2",
    });
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  const read = async (client: TestRpcClient, target: string, expression: string): Promise<unknown> =>
    (await evaluate<{ value: unknown }>(client, target, { expression, awaitPromise: true })).value;

  it("a phone in Tokyo at night, speaking Japanese, somewhere: the page sees each, another client's tab none; reset undoes all", async () => {
    // A page with a viewport meta tag lays out at the device's width (one without lays out at 980 px, as on a phone).
    const [mine, theirs] = await Promise.all([openTab(alpha, site.url("mobile.html")), openTab(beta, site.url("mobile.html"))]);
    try {
      const before = (await read(
        alpha,
        mine.target,
        "[innerWidth, Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.userAgent]",
      )) as [number, string, string];
      expect(
        await alpha.call("emulate", {
          target: mine.target,
          viewport: { width: 375, height: 812, deviceScaleFactor: 1, mobile: true },
          timezone: "Asia/Tokyo",
          locale: "ja-JP",
          colorScheme: "dark",
          userAgent: "tabwire-test-phone/1.0",
          geolocation: { latitude: 35.68, longitude: 139.76 },
          cpuThrottling: 2,
        }),
      ).to.deep.equal({});
      expect(await read(alpha, mine.target, "[innerWidth, innerHeight]")).to.deep.equal([375, 812]);
      expect(await read(alpha, mine.target, "Intl.DateTimeFormat().resolvedOptions().timeZone")).to.equal("Asia/Tokyo");
      expect(await read(alpha, mine.target, "new Intl.NumberFormat().resolvedOptions().locale")).to.equal("ja-JP");
      expect(await read(alpha, mine.target, "matchMedia('(prefers-color-scheme: dark)').matches")).to.equal(true);
      expect(await read(alpha, mine.target, "navigator.userAgent")).to.equal("tabwire-test-phone/1.0");
      expect(
        await read(
          alpha,
          mine.target,
          "new Promise((resolve) => navigator.geolocation.getCurrentPosition((p) => resolve([p.coords.latitude, p.coords.longitude]), (e) => resolve(e.message)))",
        ),
      ).to.deep.equal([35.68, 139.76]);
      const shot = (await alpha.call("screenshot", { target: mine.target })) as { width: number; height: number };
      expect([shot.width, shot.height]).to.deep.equal([375, 812]);
      // Another client's tab on the same page keeps its own.
      expect(
        await read(beta, theirs.target, "[innerWidth, Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.userAgent]"),
      ).to.deep.equal(before);
      await alpha.call("emulate", { target: mine.target, reset: true });
      expect(
        await read(alpha, mine.target, "[innerWidth, Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.userAgent]"),
      ).to.deep.equal(before);
      expect(await read(alpha, mine.target, "matchMedia('(prefers-color-scheme: dark)').matches")).to.equal(false);
    } finally {
      await Promise.all([closeTab(alpha, mine.target), closeTab(beta, theirs.target)]);
    }
  });

  it("offline makes the page's fetch reject, and a call with no conditions brings the network back; beta cannot touch alpha's tab", async () => {
    const tab = await openTab(alpha, site.url("index.html"));
    const fetched = `fetch(${JSON.stringify(site.url("data.json"))}).then((r) => r.ok, (e) => 'failed: ' + e.message)`;
    try {
      expect(await alpha.call("network.conditions", { target: tab.target, offline: true })).to.deep.equal({
        offline: true,
        latencyMs: 0,
        downloadBps: 0,
        uploadBps: 0,
      });
      expect(await read(alpha, tab.target, fetched)).to.match(/^failed: /);
      const foreign = await rpcFailure(beta.call("network.conditions", { target: tab.target }));
      expect(foreign.message).to.match(/no tab|not found/i);
      const foreignEmulate = await rpcFailure(beta.call("emulate", { target: tab.target, timezone: "Asia/Tokyo" }));
      expect(foreignEmulate.message).to.match(/no tab|not found/i);
      await alpha.call("network.conditions", { target: tab.target });
      expect(await read(alpha, tab.target, fetched)).to.equal(true);
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("the settings hold when the hub's session on the tab is replaced (MAX_SESSIONS=2, three tabs in use)", async () => {
    const tabs = [
      await openTab(alpha, site.url("index.html")),
      await openTab(alpha, site.url("index.html")),
      await openTab(alpha, site.url("index.html")),
    ];
    try {
      await alpha.call("emulate", { target: tabs[0]!.target, timezone: "Asia/Tokyo" });
      await alpha.call("network.conditions", { target: tabs[0]!.target, offline: true });
      // Using the other two pushes the first tab's session out of the pool.
      for (const tab of tabs.slice(1)) await read(alpha, tab.target, "1");
      const attaches = async (): Promise<number> => {
        const metrics = await (
          await fetch(`${hub.url.replace(/^ws/, "http")}/metrics`, { headers: { authorization: `Bearer ${FULL}` } })
        ).text();
        return Number(/^tabwire_cdp_attaches_total (\d+)/m.exec(metrics)?.[1]);
      };
      const before = await attaches();
      expect(await read(alpha, tabs[0]!.target, "Intl.DateTimeFormat().resolvedOptions().timeZone")).to.equal("Asia/Tokyo");
      // The first tab was attached anew for that read: its settings came back on the new session.
      expect(await attaches()).to.be.greaterThan(before);
      expect(
        await read(alpha, tabs[0]!.target, `fetch(${JSON.stringify(site.url("data.json"))}).then(() => 'online', () => 'offline')`),
      ).to.equal("offline");
    } finally {
      for (const tab of tabs) await closeTab(alpha, tab.target);
    }
  });

  it("an unknown time zone is INVALID_PARAMS, and reset goes alone", async () => {
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      const unknown = await rpcFailure(alpha.call("emulate", { target: tab.target, timezone: "Mars/Olympus_Mons" }));
      expect(unknown.code).to.equal(-32602);
      const mixed = await rpcFailure(alpha.call("emulate", { target: tab.target, reset: true, timezone: "Asia/Tokyo" }));
      expect(mixed.code).to.equal(-32602);
    } finally {
      await closeTab(alpha, tab.target);
    }
  });
});
