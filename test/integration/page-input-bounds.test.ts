import { expect } from "chai";
import { ErrorCode } from "../../src/errors.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { RpcError, rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

// A URL its own client chose, on which /(a+)+$/ backtracks 2^33 times: two minutes of the hub's event loop, were it
// searched there (this test then fails by its timeout, and the hub answers again afterwards).
const RUNAWAY = `?q=${"a".repeat(33)}!`;

/** How a call ended: its result, the hub's error, or "closed" when its connection closed first. */
function ending(call: Promise<unknown>): Promise<unknown> {
  return call.catch((error: unknown) => (error instanceof RpcError ? error : "closed"));
}

describe("what a client's pages and patterns send cannot stall or fill the hub for the others: wait.for expressions, network globs, the network log, console captured by a call, snapshots of giant pages (real hub)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;
  let alphaTab: OpenedTab;
  let betaTab: OpenedTab;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({ HUB_TOKENS: "pattern-alpha:alpha,pattern-beta:beta", AUTH_KEY: "pattern-agent-key" });
    [alpha, beta] = await Promise.all([connect(hub, { token: "pattern-alpha" }), connect(hub, { token: "pattern-beta" })]);
    [alphaTab, betaTab] = await Promise.all([openTab(alpha, site.url("index.html")), openTab(beta, site.url("index.html"))]);
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  it("a wait.for expression that backtracks for minutes is refused with INVALID_PARAMS, and another client is answered meanwhile", async () => {
    const waiting = rpcFailure(alpha.call("wait.for", { target: alphaTab.target, url: "/(a+)+$/", timeoutMs: 30_000 }));
    await alpha.call("navigate", { target: alphaTab.target, url: site.url(`index.html${RUNAWAY}`) });
    const [refused, answered] = await Promise.all([waiting, evaluate(beta, betaTab.target, "6 * 7")]);
    expect(answered).to.deep.include({ value: 42 });
    expect(refused.code).to.equal(ErrorCode.INVALID_PARAMS);
    expect(refused.message).to.match(
      /the regular expression \/\(a\+\)\+\$\/ took more than 100 ms on the tab's URL; use a glob or a simpler expression/,
    );
    expect(refused.data).to.deep.equal({ errors: [{ path: "/url", message: "took more than 100 ms on the tab's URL" }] });
    // The expressions of the next calls are searched as before.
    const matched = (await alpha.call("wait.for", { target: alphaTab.target, url: "/a+!$/", timeoutMs: 5_000 })) as { ok: boolean };
    expect(matched.ok).to.equal(true);
  });

  it("one client's runaway wait.for expressions do not hold up another's: clients take turns, a client's queue is capped (OVERLOADED past it), ended calls' searches are dropped", async () => {
    // Beta's URL matches /&beta$/ at once, and makes /q=(a+)+$/ backtrack for minutes as alpha's does.
    const [runaway, matching] = await Promise.all([
      openTab(alpha, site.url(`index.html${RUNAWAY}`)),
      openTab(beta, site.url(`index.html${RUNAWAY}&beta`)),
    ]);
    const [flood, witness] = await Promise.all([connect(hub, { token: "pattern-alpha" }), connect(hub, { token: "pattern-beta" })]);
    try {
      // 60 calls, each a search of up to 100 ms; then a call answered after each of them has read the tab's URL
      // (Chrome answers one session's commands in order).
      let searched = 0;
      const floodEnds = Array.from({ length: 60 }, () =>
        ending(flood.call("wait.for", { target: runaway.target, url: "/q=(a+)+$/", timeoutMs: 30_000 })).then((end) => {
          if (end instanceof RpcError && end.code === ErrorCode.INVALID_PARAMS) searched++;
          return end;
        }),
      );
      await flood.call("wait.for", { target: runaway.target, url: "**", timeoutMs: 5_000 });
      const answered = (await beta.call("wait.for", { target: matching.target, url: "/&beta$/", timeoutMs: 20_000 })) as { ok: boolean };
      const searchedBeforeBeta = searched;
      expect(answered.ok).to.equal(true);
      // Beta's turn comes after the search running now, not after the 16 of alpha's that wait (measured in searches,
      // each cut at 100 ms, rather than in time, which a slow machine stretches).
      expect(searchedBeforeBeta, "alpha's searches that ended before beta's matching wait.for was answered").to.be.at.most(2);

      // Alpha's calls past its share were refused at once: one search runs and 16 wait, and each that ran to the
      // limit (INVALID_PARAMS) made room for one more. Those still waiting end with their connection.
      await flood.close();
      const ends = await Promise.all(floodEnds);
      const count = (code: number | string): number =>
        ends.filter((end) => end === code || (end instanceof RpcError && end.code === code)).length;
      expect(count(ErrorCode.OVERLOADED), "refused past the cap").to.be.at.least(60 - 17 - count(ErrorCode.INVALID_PARAMS));
      expect(count(ErrorCode.OVERLOADED) + count(ErrorCode.INVALID_PARAMS) + count("closed")).to.equal(60);
      expect(count("closed"), "calls still waiting when their connection closed").to.be.at.least(10);
      const overloaded = ends.find((end) => end instanceof RpcError && end.code === ErrorCode.OVERLOADED) as RpcError;
      expect(overloaded.message).to.match(
        /^client alpha has 16 URLs waiting for the hub's regular expression thread, its most; retry in \d+ ms, or use a glob$/,
      );
      expect((overloaded.data as { retryAfterMs: number }).retryAfterMs).to.be.at.least(100);

      // Their searches were dropped: with beta's runaway searches taking turns, alpha's next one is answered after one
      // or two of beta's, not after beta's eight as it would behind the ten or more that waited.
      const order: string[] = [];
      const witnessEnds = Array.from({ length: 8 }, () =>
        ending(witness.call("wait.for", { target: matching.target, url: "/q=(a+)+$/", timeoutMs: 30_000 })).finally(() =>
          order.push("beta"),
        ),
      );
      await witness.call("wait.for", { target: matching.target, url: "**", timeoutMs: 5_000 });
      await alpha.call("wait.for", { target: runaway.target, url: "/q=a+!$/", timeoutMs: 20_000 });
      order.push("alpha");
      await witness.close();
      await Promise.all(witnessEnds);
      expect(order.indexOf("alpha"), `beta's searches that ended before alpha's: ${order.join(", ")}`).to.be.at.most(2);
    } finally {
      await Promise.all([flood.close(), witness.close()]);
      await Promise.all([closeTab(alpha, runaway.target), closeTab(beta, matching.target)]);
    }
  });

  it("network globs with more than 16 wildcards are INVALID_PARAMS; 16 are matched over the tab's requests", async () => {
    const tooMany = "**a".repeat(17);
    for (const [method, params, path] of [
      ["network.list", { filter: { url: tooMany } }, "/filter/url"],
      ["network.route", { url: tooMany, action: "block" }, "/url"],
      ["wait.for", { url: tooMany, timeoutMs: 1_000 }, "/url"],
    ] as const) {
      const refused = await rpcFailure(alpha.call(method, { target: alphaTab.target, ...params }));
      expect(refused.code, method).to.equal(ErrorCode.INVALID_PARAMS);
      expect(refused.data, method).to.deep.equal({ errors: [{ path, message: "has 17 wildcards; at most 16" }] });
    }
    const listed = (await alpha.call("network.list", {
      target: alphaTab.target,
      filter: { url: `**index.html?q=${"**a".repeat(15)}!` },
    })) as {
      requests: { url: string }[];
    };
    expect(listed.requests.map((request) => request.url)).to.deep.equal([site.url(`index.html${RUNAWAY}`)]);
  });
  it("a URL of 100,000 characters is kept in the tab's network log cut to its first 16,384", async () => {
    const long = site.url(`index.html?long=${"b".repeat(100_000)}`);
    await evaluate(alpha, alphaTab.target, {
      expression: `fetch(${JSON.stringify(long)}).then(() => true, () => false)`,
      awaitPromise: true,
    });
    const listed = (await alpha.call("network.list", { target: alphaTab.target, filter: { url: "**?long=b**" } })) as {
      requests: { url: string }[];
    };
    expect(listed.requests.map((request) => request.url)).to.deep.equal([long.slice(0, 16_384)]);
  });
  it("a request header of 1,000,000 characters is kept in the network log cut to its first 8,192", async () => {
    const url = site.url("index.html?big-header");
    await evaluate(alpha, alphaTab.target, {
      expression: `fetch(${JSON.stringify(url)}, { headers: { "x-big": "c".repeat(1_000_000) } }).then(() => true, () => false)`,
      awaitPromise: true,
    });
    const listed = (await alpha.call("network.list", { target: alphaTab.target, filter: { url: "**?big-header" } })) as {
      requests: { requestId: string }[];
    };
    const { request } = (await alpha.call("network.get", { target: alphaTab.target, requestId: listed.requests[0]?.requestId })) as {
      request: { requestHeaders: Record<string, string> };
    };
    expect(request.requestHeaders["x-big"]).to.equal("c".repeat(8_192));
  });
  it("console messages of megabytes logged while evaluate runs come back cut to 32,768 characters, saying how much more there was", async () => {
    const result = (await alpha.call("evaluate", {
      target: alphaTab.target,
      expression: `for (let i = 0; i < 3; i++) console.log("d".repeat(2_000_000)); 1`,
    })) as { value: number; console: { text: string }[] };
    expect(result.value).to.equal(1);
    expect(result.console.map((line) => line.text)).to.deep.equal(
      Array(3).fill(`${"d".repeat(32_768)}… [${2_000_000 - 32_768} more characters]`),
    );
  });
  it("a tab's network log keeps about 4 million characters of URLs and headers: past them the oldest requests go first", async () => {
    // Eight headers of 7,500 characters a request: about 60,000 characters each, 100 requests.
    const headers = Object.fromEntries(Array.from({ length: 8 }, (_, at) => [`x-fill-${at}`, "e".repeat(7_500)]));
    await evaluate(alpha, alphaTab.target, {
      expression: `Promise.all(Array.from({ length: 100 }, (_, at) => fetch(${JSON.stringify(site.url("index.html?fill="))} + at, { headers: ${JSON.stringify(headers)} }).catch(() => null))).then(() => true)`,
      awaitPromise: true,
    });
    const { requests } = (await alpha.call("network.list", { target: alphaTab.target, filter: { url: "**?fill=*" }, limit: 500 })) as {
      requests: { url: string }[];
    };
    // 4,194,304 / ~60,300 characters: 69 requests fit, less what the log held before.
    expect(requests.length).to.be.within(55, 69);
    const kept = requests.map((request) => Number(new URL(request.url).searchParams.get("fill")));
    expect(Math.min(...kept)).to.be.greaterThan(25);
  });
  it("a page of 30,000 buttons (60,000 nodes with their text) gives a snapshot of what the first 50,000 make, marked truncated", async () => {
    const page = await openTab(alpha, site.url("index.html"));
    await evaluate(alpha, page.target, `document.body.innerHTML = "<button>b</button>".repeat(30_000); 1`);
    const snapshot = (await alpha.call("snapshot", { target: page.target, source: "dom", timeoutMs: 50_000 })) as {
      text: string;
      truncated?: true;
    };
    expect(snapshot.truncated).to.equal(true);
    // 50,000 nodes read: each button and its text, of which the tree keeps the button (its text only repeats its name).
    expect(snapshot.text.split("\n")).to.have.lengthOf(25_001);
    const small = (await alpha.call("snapshot", { target: alphaTab.target, source: "dom" })) as { truncated?: true };
    expect(small).not.to.have.property("truncated");
    await alpha.call("tabs.close", { target: page.target });
  });
});
