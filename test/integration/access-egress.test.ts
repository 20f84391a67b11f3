import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { chromium } from "playwright-core";
import { Server } from "proxy-chain";
import type { Hub } from "../../src/hub.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { startCountingServer, type CountingServer } from "../support/egress-fixture.js";
import { eventually } from "../support/eventually.js";
import { rpcFailure, TestRpcClient } from "../support/rpc-client.js";
import { startTestHub } from "../support/test-hub.js";

const SHOP = "access-egress-shop-token";
const FREE = "access-egress-free-token";
const NAVIGATION_FAILED = -32012;

/** A DNS lookup that answers loopback for every name, in both of the forms Node asks for. */
function toLoopback(_host: string, options: { all?: boolean }, done: (error: null, address: unknown, family?: number) => void): void {
  if (options.all) done(null, [{ address: "127.0.0.1", family: 4 }]);
  else done(null, "127.0.0.1", 4);
}

/**
 * ACCESS_FILE's policies are the floor of a tenant's egress: its token's clients are held to them in the hub's proxy
 * whatever they configure themselves, and their allowed traffic leaves through the token's upstream proxy.
 */
describe("egress policy from ACCESS_FILE: a token's clients reach only what its policy allows, and cannot widen it (real hub, Chromium)", function () {
  this.timeout(90_000);
  let hub: Hub;
  let allowed: CountingServer;
  let other: CountingServer;
  let upstream: Server;
  let upstreamRequests = 0;
  let dir: string;
  let shop: TestRpcClient;
  let free: TestRpcClient;

  before(async () => {
    [allowed, other] = await Promise.all([startCountingServer(), startCountingServer()]);
    upstream = new Server({
      port: 0,
      host: "127.0.0.1",
      // The token's upstream proxy counts what it is asked for and sends the test names to loopback.
      prepareRequestFunction: () => {
        upstreamRequests++;
        return { dnsLookup: toLoopback as never };
      },
    });
    await upstream.listen();
    dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-access-egress-"));
    const file = path.join(dir, "access.json");
    const access = {
      tokens: [
        { token: SHOP, clients: ["shop-1"], policy: "shop-only" },
        { token: FREE, clients: ["free-1"] },
      ],
      policies: { "shop-only": { egress: { allow: ["allowed.test"] }, upstreamProxy: `http://127.0.0.1:${upstream.port}` } },
    };
    await writeFile(file, JSON.stringify(access));
    await chmod(file, 0o600);
    hub = await startTestHub({
      ACCESS_FILE: file,
      AUTH_KEY: "access-egress-agent-key",
      EGRESS_HOSTS: "allowed.test=127.0.0.1,other.test=127.0.0.1",
    });
    [shop, free] = await Promise.all([TestRpcClient.connect(hub.url, { token: SHOP }), TestRpcClient.connect(hub.url, { token: FREE })]);
  });
  after(async () => {
    await Promise.all([shop?.close(), free?.close()]);
    await hub?.stop();
    await upstream?.close(true);
    await Promise.all([allowed?.close(), other?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("the token's client reaches the allowed host through the token's upstream proxy; another host is NAVIGATION_FAILED and never reached; a wider policy of its own lets nothing more through", async () => {
    const { target } = await shop.call<{ target: string }>("tabs.open", {
      clientId: "shop-1",
      url: `http://allowed.test:${allowed.port}/page`,
    });
    expect(allowed.hits("/page"), "the allowed page was loaded").to.be.above(0);
    expect(upstreamRequests, "requests through the token's upstream proxy").to.be.above(0);

    const refused = await rpcFailure(shop.call("navigate", { target, url: `http://other.test:${other.port}/secret` }));
    expect(refused.code, refused.message).to.equal(NAVIGATION_FAILED);
    expect(refused.data).to.have.property("policy");

    // The client's own policy may only narrow what its token allows: a wider one changes nothing.
    await shop.call("clients.configure", { clientId: "shop-1", policy: { egress: { allow: ["allowed.test", "other.test"] } } });
    const still = await rpcFailure(shop.call("navigate", { target, url: `http://other.test:${other.port}/secret` }));
    expect(still.code, still.message).to.equal(NAVIGATION_FAILED);
    expect(other.hits(), "requests that reached the refused host").to.equal(0);
    await shop.call("tabs.close", { target });
  });

  it("through /cdp, a context the token's client makes of its own (Playwright's newContext) is held to the token's policy too", async () => {
    const { target } = await shop.call<{ target: string }>("tabs.open", {
      clientId: "shop-1",
      url: `http://allowed.test:${allowed.port}/page`,
    });
    const browser = await chromium.connectOverCDP(`${hub.url.replace(/^ws/, "http")}/cdp?clientId=shop-1`, {
      headers: { Authorization: `Bearer ${SHOP}` },
    });
    try {
      const before = other.hits();
      const context = await browser.newContext();
      const page = await context.newPage();
      const error = await page.goto(`http://127.0.0.1:${other.port}/cdp-own-context`).then(
        () => "loaded",
        (failed: Error) => failed.message,
      );
      expect(error, "a navigation of the new context to a host the policy refuses").to.match(/ERR_/);
      expect(other.hits(), "requests of the new context that reached the refused host").to.equal(before);
    } finally {
      await browser.close();
      await shop.call("tabs.close", { target });
    }
  });

  it("another token's client is not held to the policy and its traffic does not go through the other token's upstream proxy", async () => {
    const before = upstreamRequests;
    const { target } = await free.call<{ target: string }>("tabs.open", { clientId: "free-1", url: `http://127.0.0.1:${other.port}/open` });
    expect(other.hits("/open"), "the other client's page was loaded").to.be.above(0);
    expect(upstreamRequests, "requests of another client through the shop's upstream proxy").to.equal(before);
    // The shop's token reaches no other client, so it cannot lift its policy by naming one.
    const forbidden = await rpcFailure(shop.call("tabs.open", { clientId: "free-1", url: "about:blank" }));
    expect(forbidden.code).to.equal(-32007);
    await free.call("tabs.close", { target });
  });
});

describe("egress refusals in audit.log (a hub process of its own)", function () {
  this.timeout(90_000);
  let hub: ChildHub | undefined;
  let other: CountingServer | undefined;
  let home: string;

  after(async () => {
    await hub?.stop();
    await other?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("a request the policy refused is a chained policy.blocked line with the client, host, port and rule, and no path", async () => {
    other = await startCountingServer();
    home = await mkdtemp(path.join(os.tmpdir(), "tabwire-egress-audit-"));
    hub = await startChildHub({ EGRESS_HOSTS: "allowed.test=127.0.0.1,other.test=127.0.0.1" }, { dir: home });
    const client = await TestRpcClient.connect(hub.url);
    try {
      await client.call("clients.configure", { clientId: "audited", policy: { egress: { allow: ["allowed.test"] } } });
      const { target } = await client.call<{ target: string }>("tabs.open", { clientId: "audited", url: "about:blank" });
      const refused = await rpcFailure(client.call("navigate", { target, url: `http://other.test:${other.port}/secret-path?token=x` }));
      expect(refused.code).to.equal(NAVIGATION_FAILED);
      const file = path.join(home, "logs", "audit.log");
      let blocked: Record<string, unknown> | undefined;
      await eventually(
        async () => {
          const lines = (await readFile(file, "utf8").catch(() => "")).split("\n").filter((line) => line.length > 0);
          blocked = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.message === "policy.blocked");
          return blocked !== undefined;
        },
        EVENT_BUDGET_MS,
        "policy.blocked in audit.log",
      );
      expect(blocked).to.deep.include({ clientId: "audited", host: "other.test", port: other.port });
      expect(blocked).to.have.property("rule").that.is.a("string");
      expect(blocked).to.have.property("prev").that.is.a("string");
      expect(JSON.stringify(blocked)).to.not.include("secret-path");
      expect(other.hits(), "requests that reached the refused host").to.equal(0);
    } finally {
      await client.close();
    }
  });
});
