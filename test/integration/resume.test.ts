import { expect } from "chai";
import { CallInDoubtError, TabwireClient, type ConsoleMessage, type Reconnected } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab } from "../support/tabs.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { startTestHub } from "../support/test-hub.js";

const MESSAGES = 2_000;
const CUT_MS = 2_000;

/** The next `reconnected` of a client, with what it says. */
function nextReconnect(client: TabwireClient): Promise<Reconnected> {
  return new Promise((resolve) => {
    const stop = client.on("reconnected", (info: Reconnected) => {
      stop();
      resolve(info);
    });
  });
}

describe("sessions that survive a dropped socket (real hub, real Chromium, a TCP proxy cut between them)", function () {
  this.timeout(90_000);
  let hub: Hub;
  let shortWindow: Hub;
  let fixtures: FixtureServer;
  let proxy: TcpProxy;

  before(async () => {
    [hub, shortWindow, fixtures] = await Promise.all([startTestHub(), startTestHub({ RESUME_WINDOW_MS: "1000" }), startFixtureServer()]);
  });
  afterEach(async () => proxy?.close());
  after(async () => {
    await Promise.all([hub?.stop(), shortWindow?.stop(), fixtures?.close()]);
  });

  it(`a ${CUT_MS} ms cut while the tab logs 1..${MESSAGES}: after the resume each message arrives once, in order, and the call started before the cut is answered`, async () => {
    proxy = await startTcpProxy(hub.port);
    const client = await TabwireClient.connect({ url: proxy.url });
    const { target } = await openTab(client, fixtures.url("index.html"));
    const texts: string[] = [];
    client.on("console.message", (message: ConsoleMessage) => texts.push(message.text));
    await client.call("console.subscribe", { target });
    const reconnected = nextReconnect(client);
    // The page logs in bursts for about a second, so that most of it happens while the line is cut.
    const logging = client.evaluate({
      target,
      expression: `new Promise((done) => { let n = 0; const burst = () => { for (let k = 0; k < 100 && n < ${MESSAGES}; k++) console.log(String(++n)); if (n < ${MESSAGES}) setTimeout(burst, 50); else done(n); }; burst(); })`,
      captureConsole: false,
      timeoutMs: EVENT_BUDGET_MS,
    });
    await eventually(() => Promise.resolve(texts.length > 0), EVENT_BUDGET_MS, "the first message");
    await proxy.cut(CUT_MS);
    expect(await logging).to.deep.include({ type: "number", value: MESSAGES });
    const info = await reconnected;
    expect(info.resumed, JSON.stringify(info)).to.equal(true);
    expect(info.replayed).to.be.above(0);
    await eventually(() => Promise.resolve(texts.length >= MESSAGES), EVENT_BUDGET_MS, `${MESSAGES} messages`);
    expect(texts).to.deep.equal(Array.from({ length: MESSAGES }, (_, i) => String(i + 1)));
    await closeTab(client, target);
    await client.close();
  });

  it("a cut longer than RESUME_WINDOW_MS: reconnected says the resume failed and what was lost, the call in doubt is rejected, the subscription is made again", async () => {
    proxy = await startTcpProxy(shortWindow.port);
    const client = await TabwireClient.connect({ url: proxy.url });
    const { target } = await openTab(client, fixtures.url("index.html"));
    const messages: ConsoleMessage[] = [];
    client.on("console.message", (message: ConsoleMessage) => messages.push(message));
    const { subscriptionId } = await client.call("console.subscribe", { target });
    const reconnected = nextReconnect(client);
    // A call that is still running when the line goes, while the page logs every 20 ms until the end of the test.
    const running = client
      .evaluate({ target, expression: "setInterval(() => console.log('tick'), 20); new Promise(() => {})", timeoutMs: EVENT_BUDGET_MS })
      .catch((error: unknown) => error);
    await eventually(() => Promise.resolve(messages.length > 0), EVENT_BUDGET_MS, "the first tick");
    await proxy.cut(3 * 1_000);
    const info = await reconnected;
    expect(info.resumed, JSON.stringify(info)).to.equal(false);
    expect(info.reason).to.equal("expired");
    expect(info.missed?.fromSeq, JSON.stringify(info)).to.be.a("number");
    expect(info.missed!.toSeq).to.be.at.least(info.missed!.fromSeq);
    expect(info.inDoubt).to.equal(1);
    expect(await running).to.be.instanceOf(CallInDoubtError);
    expect(String((await running) as Error)).to.match(/may or may not have run/);
    expect(info.resubscribed).to.have.length(1);
    const [again] = info.resubscribed;
    expect(again).to.include({ method: "console.subscribe", subscriptionId });
    await eventually(
      () => Promise.resolve(messages.some((message) => message.subscriptionId === again!.newSubscriptionId)),
      EVENT_BUDGET_MS,
      "a tick on the new subscription",
    );
    await closeTab(client, target);
    await client.close();
  });
});

describe("session.resume is for the session's own token only (real hub, tokens and agent keys)", function () {
  this.timeout(60_000);
  const FULL = "resume-full-token";
  const ALPHA = "resume-alpha-token";
  const BETA = "resume-beta-token";
  const AGENT_BETA = "resume-agent-beta-key";
  let hub: Hub;
  let proxy: TcpProxy;

  before(async () => {
    hub = await startTestHub({ HUB_TOKEN: FULL, HUB_TOKENS: `${ALPHA}:alpha,${BETA}:beta`, AGENT_KEYS: `${AGENT_BETA}:beta` });
    proxy = await startTcpProxy(hub.port);
  });
  after(async () => {
    await proxy?.close();
    await hub?.stop();
  });

  it("another token, a scoped token for another client, an agent with another key and a stranger get nothing; the owner still resumes", async () => {
    const owner = await TabwireClient.connect({ url: proxy.url, token: ALPHA, reconnect: false });
    const session = owner.session;
    expect(session).to.be.a("string");
    const { target } = await owner.call("tabs.open", { clientId: "alpha" });
    await owner.call("console.subscribe", { target });
    const closed = new Promise<void>((resolve) => owner.on("disconnected", resolve));
    void proxy.cut(0);
    await closed;
    // What the owner missed while away: a secret of alpha's page.
    const helper = await TabwireClient.connect({ url: hub.url, token: ALPHA, reconnect: false });
    await helper.evaluate({ target, expression: "console.log('alpha-secret')" });

    const resume = { session, lastSeq: 0 };
    for (const token of [FULL, BETA]) {
      const other = await TestRpcClient.connect(hub.url, { token, path: "/rpc?resume=on" });
      const heard: string[] = [];
      other.onNotification((method, params) => heard.push(`${method} ${JSON.stringify(params)}`));
      expect(await other.call("session.resume", resume)).to.deep.include({ resumed: false, reason: "unknown" });
      expect(await other.call("ping")).to.include({ pong: true });
      expect(heard, token).to.deep.equal([]);
      await other.close();
    }
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${AGENT_BETA}`, clientId: "beta:resume" });
    expect(await agent.call("session.resume", resume)).to.deep.include({ resumed: false });
    await agent.close();
    for (const token of [undefined, "not-a-token-of-this-hub"]) {
      const refused = await TestRpcClient.connect(hub.url, { path: "/rpc?resume=on", ...(token ? { token } : {}) }).catch(
        (e: unknown) => e,
      );
      expect((refused as { status?: number }).status).to.equal(401);
    }

    const back = await TestRpcClient.connect(hub.url, { token: ALPHA, path: "/rpc?resume=on" });
    const heard: string[] = [];
    back.onNotification((method, params) => heard.push(String(params.text ?? method)));
    expect(await back.call("session.resume", resume)).to.deep.include({ resumed: true, session });
    expect(heard).to.include("alpha-secret");
    await back.call("tabs.close", { target });
    await Promise.all([back.close(), helper.close(), owner.close()]);
  });
});
