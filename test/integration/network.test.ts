import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "network-full-token";
const TOKEN_A = "network-token-alpha";
const TOKEN_B = "network-token-beta";

interface Listed {
  requests: { requestId: string; url: string; method: string; resourceType: string; state: string; status?: number }[];
  total: number;
}

interface HarLog {
  log: {
    version: string;
    creator: { name: string; version: string };
    entries: {
      startedDateTime: string;
      time: number;
      request: Record<string, unknown> & { url: string; headers: unknown[] };
      response: Record<string, unknown> & { status: number; content: { size: number; mimeType: string; text?: string } };
      cache: object;
      timings: { send: number; wait: number; receive: number };
    }[];
  };
}

describe("network.list, network.get, network.har, network.route and network.unroute, per tab and per client (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({ HUB_TOKEN: FULL, HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`, AUTH_KEY: "network-agent-key" });
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  const waitForText = (client: TestRpcClient, target: string, text: string): Promise<unknown> =>
    client.call("wait.for", { target, text, timeoutMs: 10_000 });

  it("lists a page's requests with status and type, filters them, gives one with its JSON body, and writes a HAR 1.2 of them", async () => {
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      await evaluate(alpha, tab.target, {
        expression: `fetch(${JSON.stringify(site.url("data.json"))}).then((r) => r.json())`,
        awaitPromise: true,
      });
      const listed = (await alpha.call("network.list", { target: tab.target })) as Listed;
      const page = listed.requests.find((request) => request.url === site.url("index.html"));
      expect(page).to.include({ method: "GET", resourceType: "Document", status: 200, state: "finished" });
      const data = listed.requests.find((request) => request.url === site.url("data.json"));
      expect(data).to.include({ resourceType: "Fetch", status: 200, state: "finished" });
      const onlyFetches = (await alpha.call("network.list", { target: tab.target, filter: { resourceType: ["fetch"] } })) as Listed;
      expect(onlyFetches.requests.map((request) => request.url)).to.deep.equal([site.url("data.json")]);
      const byUrl = (await alpha.call("network.list", {
        target: tab.target,
        filter: { url: "**/*.json", statusMin: 200, statusMax: 299 },
      })) as Listed;
      expect(byUrl.total).to.equal(1);
      const one = (await alpha.call("network.get", { target: tab.target, requestId: data!.requestId, body: true })) as {
        request: { responseHeaders: Record<string, string>; mimeType: string };
        body: { data: string; base64Encoded: boolean; truncated: boolean };
      };
      expect(one.request.mimeType).to.equal("application/json");
      expect(one.body.base64Encoded).to.equal(false);
      expect(JSON.parse(one.body.data)).to.deep.equal({ data: "fetched", count: 42 });
      const har = (await alpha.call("network.har", { target: tab.target })) as HarLog;
      expect(har.log.version).to.equal("1.2");
      expect(har.log.creator).to.have.keys("name", "version");
      expect(har.log.entries.map((entry) => entry.request.url)).to.include.members([site.url("index.html"), site.url("data.json")]);
      for (const entry of har.log.entries) {
        expect(Number.isNaN(Date.parse(entry.startedDateTime))).to.equal(false);
        expect(entry.time).to.be.a("number");
        expect(entry.request).to.include.keys(
          "method",
          "url",
          "httpVersion",
          "cookies",
          "headers",
          "queryString",
          "headersSize",
          "bodySize",
        );
        expect(entry.response).to.include.keys(
          "status",
          "statusText",
          "httpVersion",
          "cookies",
          "headers",
          "content",
          "redirectURL",
          "headersSize",
          "bodySize",
        );
        expect(entry.response.content).to.include.keys("size", "mimeType");
        expect(entry.cache).to.be.an("object");
        expect(entry.timings).to.include.keys("send", "wait", "receive");
      }
      const withBodies = (await alpha.call("network.har", { target: tab.target, bodies: true })) as HarLog;
      const json = withBodies.log.entries.find((entry) => entry.request.url === site.url("data.json"));
      expect(JSON.parse(json?.response.content.text ?? "null")).to.deep.equal({ data: "fetched", count: 42 });
      // Another client's token gets nothing of the tab.
      for (const method of ["network.list", "network.har"])
        expect((await rpcFailure(beta.call(method, { target: tab.target }))).message).to.match(/no tab|not found/i);
      expect((await rpcFailure(beta.call("network.get", { target: tab.target, requestId: data!.requestId }))).message).to.match(
        /no tab|not found/i,
      );
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("a fulfilled /api/user route makes the page show the mocked name; a blocked image has naturalWidth 0; unroute gives the network back", async () => {
    const tab = await openTab(alpha, site.url("user.html"));
    try {
      await waitForText(alpha, tab.target, "no user (404)");
      expect(await evaluate<{ value: number }>(alpha, tab.target, "document.getElementById('logo').naturalWidth")).to.deep.include({
        value: 2,
      });
      const { routeId } = (await alpha.call("network.route", {
        url: "**/api/user",
        action: "fulfill",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Ada Mocked" }),
      })) as { routeId: string };
      const blocked = (await alpha.call("network.route", { target: tab.target, url: "**/logo.png", action: "block" })) as {
        routeId: string;
      };
      await alpha.call("navigate", { target: tab.target, url: site.url("user.html") });
      await waitForText(alpha, tab.target, "Ada Mocked");
      // The client's route covers a tab it opens later too.
      const later = await openTab(alpha, site.url("user.html"));
      await waitForText(alpha, later.target, "Ada Mocked");
      await closeTab(alpha, later.target);
      const image = await evaluate<{ value: [boolean, number] }>(alpha, tab.target, {
        expression:
          "new Promise((resolve) => { const img = document.getElementById('logo'); const done = () => resolve([img.complete, img.naturalWidth]); img.complete ? done() : (img.onerror = img.onload = done); })",
        awaitPromise: true,
      });
      expect(image.value).to.deep.equal([true, 0]);
      // A route of alpha's is unknown to beta, and beta's pages are never routed.
      expect((await rpcFailure(beta.call("network.unroute", { routeId }))).code).to.equal(-32602);
      const theirs = await openTab(beta, site.url("user.html"));
      await waitForText(beta, theirs.target, "no user (404)");
      await closeTab(beta, theirs.target);
      expect(await alpha.call("network.unroute", { routeId })).to.deep.equal({ removed: true });
      expect(await alpha.call("network.unroute", { routeId: blocked.routeId })).to.deep.equal({ removed: true });
      await alpha.call("navigate", { target: tab.target, url: site.url("user.html") });
      await waitForText(alpha, tab.target, "no user (404)");
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("continue adds a header the server sees; times ends a route after its uses; beta cannot route alpha's tabs", async () => {
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      await alpha.call("network.route", {
        target: tab.target,
        url: "**/cookies",
        action: "continue",
        headers: { Cookie: "added=by-route" },
      });
      await alpha.call("network.route", { target: tab.target, url: "**/data.json", action: "block", times: 1 });
      await alpha.call("navigate", { target: tab.target, url: site.url("cookies") });
      expect((await evaluate<{ value: string }>(alpha, tab.target, "document.body.innerText")).value).to.equal("added=by-route");
      const twice = `Promise.all([1, 2].map(() => fetch(${JSON.stringify(site.url("data.json"))}).then(() => 'ok', () => 'blocked')))`;
      expect(
        (await evaluate<{ value: string[] }>(alpha, tab.target, { expression: twice, awaitPromise: true })).value.sort(),
      ).to.deep.equal(["blocked", "ok"]);
      expect((await rpcFailure(beta.call("network.route", { target: tab.target, url: "**", action: "block" }))).message).to.match(
        /no tab|not found/i,
      );
      expect((await rpcFailure(beta.call("network.route", { clientId: "alpha", url: "**", action: "block" }))).code).to.equal(-32007);
    } finally {
      await closeTab(alpha, tab.target);
    }
  });
});
