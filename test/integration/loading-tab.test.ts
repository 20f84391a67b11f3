import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { ANSWER_GRACE_MS, hubAnswerMs, TIMER_LAG_MS } from "../support/budgets.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { failure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connectClient, sharedHub } from "../support/test-hub.js";

const PAGE_LOADING = -32014;
const TIMEOUT = -32001;

describe("a tab stuck loading a page whose server never answers (real hub, real Chromium)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TabwireClient;
  let tab: OpenedTab;
  let hang: string;

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connectClient(hub);
    hang = `${fixtures.origin}/hang`;
  });
  after(async () => {
    await client.close();
    await fixtures.close();
  });
  beforeEach(async () => {
    tab = await openTab(client, fixtures.url("index.html"));
  });
  afterEach(async () => {
    await closeTab(client, tab.target);
  });

  /** Starts a load of /hang that never ends, as a caller would: a navigate that runs out of its budget. */
  async function stuck(query = ""): Promise<string> {
    const url = `${hang}${query}`;
    expect((await failure(client.call("navigate", { target: tab.target, url, timeoutMs: 1000 }))).code).to.equal(TIMEOUT);
    return url;
  }

  it("navigate past its budget is TIMEOUT naming the URL and saying the tab goes on loading it", async () => {
    const error = await failure(client.call("navigate", { target: tab.target, url: hang, timeoutMs: 1500 }));
    expect(error.code).to.equal(TIMEOUT);
    expect(error.message).to.include(hang).and.include("still loading").and.include("tabs.stop");
    expect(error.data).to.deep.equal({ timeoutMs: 1500, terminated: false, url: hang, committed: false });
  });

  it("navigate with waitUntil none answers as soon as the load has started", async () => {
    expect(await client.call("navigate", { target: tab.target, url: hang, waitUntil: "none" })).to.deep.equal({
      url: hang,
      title: "Fixture Home",
    });
  });

  it("evaluate answers PAGE_LOADING within its budget, naming the loading URL and how to stop it, not a timeout of the code", async () => {
    const url = await stuck("?for=evaluate");
    const before = await hubAnswerMs(hub.url, { method: "evaluate", outcome: "PAGE_LOADING" });
    const error = await failure(evaluate(client, tab.target, { expression: "1 + 1", timeoutMs: 5000 }));
    expect(error.code).to.equal(PAGE_LOADING);
    expect(error.message).to.include(`still loading ${url}`).and.include("navigate elsewhere").and.include("tabs.stop");
    expect(error.message).to.not.include("the code did not finish");
    expect(error.data).to.include({ url }).and.have.property("loadingMs").that.is.a("number");
    // As the hub measures it, from the call's arrival to its answer.
    const took = (await hubAnswerMs(hub.url, { method: "evaluate", outcome: "PAGE_LOADING" })) - before;
    expect(took, "ms from the call's arrival to its answer").to.be.below(5000 + ANSWER_GRACE_MS + TIMER_LAG_MS);
  });

  it("snapshot, content, callOn and an action answer PAGE_LOADING too, with their default budgets", async () => {
    const url = await stuck();
    const calls: [string, Promise<unknown>][] = [
      ["snapshot", client.call("snapshot", { target: tab.target })],
      ["content", client.call("content", { target: tab.target })],
      ["callOn", client.call("callOn", { target: tab.target, selector: "h1", functionDeclaration: "(el) => el.textContent" })],
      ["click", client.call("click", { target: tab.target, selector: "a" })],
    ];
    for (const [method, call] of calls) {
      const error = await failure(call);
      expect([error.code, (error.data as { url?: string }).url], method).to.deep.equal([PAGE_LOADING, url]);
    }
  });

  it("wait.for waits through the load within its whole budget, then answers PAGE_LOADING", async () => {
    const url = await stuck();
    const error = await failure(client.call("wait.for", { target: tab.target, text: "tabwire", timeoutMs: 3000 }));
    expect([error.code, (error.data as { url?: string }).url]).to.deep.equal([PAGE_LOADING, url]);
    expect((error.data as { loadingMs: number }).loadingMs).to.be.at.least(2500);
  });

  it("what Chrome answers without the page works meanwhile: tabs.list and a screenshot of the page shown", async () => {
    await stuck();
    const shot = await client.call("screenshot", { target: tab.target });
    expect(shot.format).to.equal("png");
    const { tabs } = await client.call("tabs.list", {});
    expect(tabs.find((each) => each.target === tab.target)?.title).to.equal("Fixture Home");
  });

  it("code that starts a load which never ends is told so past its budget, not that the hub stopped it", async () => {
    const error = await failure(
      evaluate(client, tab.target, { expression: "location.href = '/hang?from=code'; await new Promise(() => {})", timeoutMs: 2000 }),
    );
    expect(error.code).to.equal(TIMEOUT);
    expect(error.message).to.include(`the tab is loading ${hang}?from=code`);
    expect(error.data).to.deep.equal({ timeoutMs: 2000, terminated: false });
  });

  it("navigate elsewhere recovers the tab", async () => {
    await stuck();
    expect((await failure(evaluate(client, tab.target, "document.title"))).code).to.equal(PAGE_LOADING);
    expect(await client.call("navigate", { target: tab.target, url: fixtures.url("other.html") })).to.deep.equal({
      url: fixtures.url("other.html"),
      title: "Other Page",
    });
    expect((await evaluate(client, tab.target, "document.title")).value).to.equal("Other Page");
  });

  it("tabs.stop gives the load up: the page shown stays and calls work on it at once", async () => {
    await stuck();
    expect(await client.call("tabs.stop", { target: tab.target })).to.deep.equal({
      url: fixtures.url("index.html"),
      title: "Fixture Home",
    });
    expect((await evaluate(client, tab.target, { expression: "location.href", timeoutMs: 1000 })).value).to.equal(
      fixtures.url("index.html"),
    );
  });

  it("tabs.reload gives the load up for the page shown", async () => {
    await stuck();
    expect(await client.call("tabs.reload", { target: tab.target })).to.deep.equal({
      url: fixtures.url("index.html"),
      title: "Fixture Home",
    });
    expect((await evaluate(client, tab.target, "document.title")).value).to.equal("Fixture Home");
  });

  it("wait.for a load state waits for the page being loaded, not the one shown", async () => {
    await client.call("navigate", { target: tab.target, url: `${fixtures.origin}/slow?ms=3000`, waitUntil: "none" });
    // The server answers after 3 s: a wait that ends sooner saw the page shown, not the one being loaded.
    const { waitedMs } = await client.call("wait.for", { target: tab.target, loadState: "load" });
    expect(waitedMs).to.be.at.least(1000);
    expect((await evaluate(client, tab.target, "document.title + ' ' + document.readyState")).value).to.equal("slow complete");
  });
});
