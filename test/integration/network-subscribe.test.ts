import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { collect } from "../support/collect.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const TOKEN_A = "network-stream-token-alpha";
const TOKEN_B = "network-stream-token-beta";

interface Request {
  requestId: string;
  url: string;
  state: string;
  status?: number;
}

interface Requests {
  subscriptionId: string;
  target: string;
  requests: Request[];
  missed?: number;
}

describe("network.subscribe: a tab's requests as they are sent and answered, to its own client only (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: "network-stream-agent-key",
      MAX_SUBSCRIPTIONS: "2",
    });
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  it("a fetch of the page arrives as it is sent and again once answered, with its whole URL and status", async () => {
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      const { subscriptionId } = await alpha.call<{ subscriptionId: string }>("network.subscribe", { target: tab.target });
      const url = site.url("data.json?with=a&long=query");
      const answered = collect<Requests>(alpha, "network.requests", (all) =>
        all.some((notice) => notice.requests.some((request) => request.url === url && request.state === "finished")),
      );
      await evaluate(alpha, tab.target, { expression: `fetch(${JSON.stringify(url)}).then((r) => r.text())`, awaitPromise: true });
      const notices = (await answered).filter((notice) => notice.subscriptionId === subscriptionId);
      expect(notices.every((notice) => notice.target === tab.target)).to.equal(true);
      const seen = notices.flatMap((notice) => notice.requests).filter((request) => request.url === url);
      expect(seen[seen.length - 1]).to.deep.include({ url, state: "finished", status: 200 });
      expect(new Set(seen.map((request) => request.requestId)).size).to.equal(1);
      expect(await alpha.call("network.unsubscribe", { subscriptionId })).to.deep.equal({ unsubscribed: true });
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("another client cannot subscribe to the tab or end the subscription; an ended one sends nothing more", async () => {
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      expect((await rpcFailure(beta.call("network.subscribe", { target: tab.target }))).code).to.equal(-32002);
      const ended = await alpha.call<{ subscriptionId: string }>("network.subscribe", { target: tab.target });
      const control = await alpha.call<{ subscriptionId: string }>("network.subscribe", { target: tab.target });
      expect((await rpcFailure(beta.call("network.unsubscribe", { subscriptionId: ended.subscriptionId }))).code).to.equal(-32602);
      expect(await alpha.call("network.unsubscribe", { subscriptionId: ended.subscriptionId })).to.deep.equal({ unsubscribed: true });
      const url = site.url("data.json?after=unsubscribe");
      // Notifications of one connection come in order: once the control has the finished request, the other would too.
      const heard = collect<Requests>(alpha, "network.requests", (all) =>
        all.some(
          (notice) =>
            notice.subscriptionId === control.subscriptionId && notice.requests.some((r) => r.url === url && r.state === "finished"),
        ),
      );
      await evaluate(alpha, tab.target, { expression: `fetch(${JSON.stringify(url)}).then((r) => r.text())`, awaitPromise: true });
      expect((await heard).filter((notice) => notice.subscriptionId === ended.subscriptionId)).to.deep.equal([]);
      await alpha.call("network.unsubscribe", { subscriptionId: control.subscriptionId });
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("a page that fetches in a loop is told at most once per 100 ms per subscription, every request included", async () => {
    const tab = await openTab(alpha, site.url("index.html"));
    try {
      const { subscriptionId } = await alpha.call<{ subscriptionId: string }>("network.subscribe", { target: tab.target });
      const COUNT = 60;
      const urls = new Set(Array.from({ length: COUNT }, (_, i) => site.url(`data.json?n=${i}`)));
      const finished = new Set<string>();
      const arrivals: number[] = [];
      const done = collect<Requests>(alpha, "network.requests", (all) => {
        const newest = all[all.length - 1];
        if (newest?.subscriptionId !== subscriptionId) return false;
        arrivals.push(Date.now());
        for (const request of newest.requests) if (request.state === "finished" && urls.has(request.url)) finished.add(request.url);
        return finished.size === COUNT;
      });
      await evaluate(alpha, tab.target, {
        expression: `Promise.all(Array.from({ length: ${COUNT} }, (_, i) => fetch(${JSON.stringify(site.url("data.json?n="))} + i).then((r) => r.text()))).then(() => ${COUNT})`,
        awaitPromise: true,
      });
      await done;
      const spanMs = arrivals[arrivals.length - 1]! - arrivals[0]!;
      // One at once, then one per 100 ms at most; the slack is for delivery jitter between the hub and this client.
      expect(arrivals.length, `${arrivals.length} notifications over ${spanMs} ms`).to.be.at.most(Math.floor(spanMs / 100) + 3);
      await alpha.call("network.unsubscribe", { subscriptionId });
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("holds at most MAX_SUBSCRIPTIONS per connection, and a closed tab ends its subscriptions", async () => {
    const before = hub.services.networkStream.size;
    const tab = await openTab(alpha, "about:blank");
    await alpha.call("network.subscribe", { target: tab.target });
    await alpha.call("network.subscribe", { target: tab.target });
    const refused = await rpcFailure(alpha.call("network.subscribe", { target: tab.target }));
    expect(refused.code).to.equal(-32011);
    expect(refused.message).to.equal(
      "this connection holds 2 network subscriptions (MAX_SUBSCRIPTIONS); end one with network.unsubscribe first",
    );
    await closeTab(alpha, tab.target);
    expect(hub.services.networkStream.size).to.equal(before);
    const again = await openTab(alpha, "about:blank");
    expect((await alpha.call<{ subscriptionId: string }>("network.subscribe", { target: again.target })).subscriptionId).to.be.a("string");
    await closeTab(alpha, again.target);
  });
});
