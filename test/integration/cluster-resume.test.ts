import { expect } from "chai";
import WebSocket from "ws";
import { TabwireClient, type ConsoleMessage, type Reconnected } from "../../src/client/index.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { killHub, startClusterHubs, stopHub, type ClusterHub } from "../support/cluster-hub.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { eventually } from "../support/eventually.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { requireChromium } from "../support/test-hub.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

const OWNER = "cluster-resume-owner";
const OTHER = "cluster-resume-other";
const SCOPED = "cluster-resume-scoped";
const OTHER_AGENT_KEY = "cluster-resume-other-agent-key";
const MESSAGES = 50;
const BURST_MESSAGES = 2_000;
const CUT_MS = 2_000;
const START_TIMEOUT_MS = 60_000;

type Resumed = {
  resumed: boolean;
  session: string;
  replayed?: number;
  reason?: string;
  lost?: { fromSeq?: number; toSeq?: number; calls: unknown[] };
};

/** The next `reconnected` of a client, with what it says. */
function nextReconnect(client: TabwireClient): Promise<Reconnected> {
  return new Promise((resolve) => {
    const stop = client.on("reconnected", (info: Reconnected) => {
      stop();
      resolve(info);
    });
  });
}

/** The texts and seqs of the console messages a raw client hears. */
function heard(client: TestRpcClient): { texts: string[]; seqs: number[] } {
  const texts: string[] = [];
  const seqs: number[] = [];
  client.onNotification((method, params) => {
    if (method !== "console.message") return;
    texts.push(String(params.text));
    if (typeof params.seq === "number") seqs.push(params.seq);
  });
  return { texts, seqs };
}

describe("session.resume in a cluster: the session lived on instance A, the client comes back on instance B", function () {
  this.timeout(60_000);
  let redis: RedisServer | undefined;
  let hubs: ClusterHub[] = [];
  let proxy: TcpProxy | undefined;
  const closers: (() => Promise<unknown>)[] = [];

  const a = (): ClusterHub => hubs[0] as ClusterHub;
  const b = (): ClusterHub => hubs[1] as ClusterHub;
  const c = (): ClusterHub => hubs[2] as ClusterHub;
  const portOf = (hub: ClusterHub): number => Number(new URL(hub.url).port);
  const raw = async (hub: ClusterHub, token: string): Promise<TestRpcClient> => {
    const client = await TestRpcClient.connect(hub.url, { token, path: "/rpc?resume=on" });
    closers.push(() => client.close());
    return client;
  };

  /** A typed client on A through the proxy, subscribed to the console of a tab of A; the line is then cut. */
  async function awaySession(): Promise<{ session: string; target: string }> {
    proxy = await startTcpProxy(portOf(a()));
    const owner = await TabwireClient.connect({ url: proxy.url, token: OWNER, reconnect: false });
    closers.push(() => owner.close());
    const session = owner.session as string;
    expect(session).to.be.a("string");
    const { target } = await owner.call("tabs.open", { url: "data:text/html,<title>a</title>" });
    await owner.call("console.subscribe", { target });
    const closed = new Promise<void>((resolve) => owner.on("disconnected", resolve));
    void proxy.cut(0);
    await closed;
    return { session, target };
  }

  /** `count` messages logged by the tab of A, through a helper of the same token on A. */
  async function logOnA(target: string, expression: string): Promise<void> {
    const helper = await raw(a(), OWNER);
    await helper.call("evaluate", { target, expression });
    await helper.close();
  }

  before(async function () {
    this.timeout(START_TIMEOUT_MS + 30_000);
    requireChromium();
    redis = await startRedisServer();
    hubs = await startClusterHubs(["a", "b", "c"], redis.url, {
      HUB_TOKENS: `${OWNER},${OTHER},${SCOPED}:scoped-client`,
      AGENT_KEYS: `${OTHER_AGENT_KEY}:other-client`,
      RESUME_WINDOW_MS: "20000",
    });
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
    await proxy?.close();
  });
  after(async function () {
    this.timeout(60_000);
    await Promise.all(hubs.map(stopHub));
    await redis?.stop();
  });

  it("B resumes A's session: every message logged while away arrives once, in order, and a later one too; bad frames through it are answered; another token learns nothing", async () => {
    const { session, target } = await awaySession();
    await logOnA(target, `for (let n = 1; n <= ${MESSAGES}; n++) console.log(String(n))`);

    const stranger = await raw(b(), OTHER);
    const overheard: string[] = [];
    stranger.onNotification((method, params) => overheard.push(`${method} ${JSON.stringify(params)}`));
    expect(await stranger.call<Resumed>("session.resume", { session, lastSeq: 0 })).to.deep.include({ resumed: false, reason: "unknown" });
    expect(await stranger.call("ping")).to.include({ pong: true });

    const back = await raw(b(), OWNER);
    const { texts, seqs } = heard(back);
    const answer = await back.call<Resumed>("session.resume", { session, lastSeq: 0 });
    expect(answer, JSON.stringify(answer)).to.deep.include({ resumed: true, session, replayed: MESSAGES });
    const expected = Array.from({ length: MESSAGES }, (_, i) => String(i + 1));
    await eventually(() => Promise.resolve(texts.length >= MESSAGES), EVENT_BUDGET_MS, `${MESSAGES} replayed messages on B`);
    expect(texts).to.deep.equal(expected);
    await logOnA(target, "console.log('after')");
    await eventually(() => Promise.resolve(texts.includes("after")), EVENT_BUDGET_MS, "the message logged after the resume");
    expect(texts).to.deep.equal([...expected, "after"]);
    expect(seqs, "sequence numbers keep rising").to.deep.equal([...seqs].sort((x, y) => x - y));

    // Frames that are no JSON-RPC travel to A as they are, and A's answers come back; both instances go on.
    back.sendRaw("{not json");
    expect(await back.nextFrame())
      .to.deep.include({ id: null })
      .and.to.have.nested.property("error.code", -32700);
    back.sendRaw("[]");
    expect(((await back.nextFrame()) as { error: { code: number } }).error.code).to.equal(-32600);
    expect(await back.call("ping")).to.include({ pong: true });
    expect(overheard, "what the other token heard").to.deep.equal([]);
    await back.call("tabs.close", { target });
  });

  it("a scoped token, an agent with another key and a stranger on B get nothing of a session A keeps, and the owner still resumes it", async () => {
    const { session, target } = await awaySession();
    const scoped = await raw(b(), SCOPED);
    expect(await scoped.call<Resumed>("session.resume", { session, lastSeq: 0 })).to.deep.include({ resumed: false, reason: "unknown" });
    const stranger = await TestRpcClient.connect(b().url, { path: "/rpc?resume=on" }).catch((error: { status?: number }) => error.status);
    expect(stranger, "a stranger's upgrade").to.equal(401);
    const wrongKey = await TestAgent.connect({ url: `${b().url}/agent?token=${OTHER_AGENT_KEY}`, clientId: target });
    closers.push(() => wrongKey.close());
    expect((await wrongKey.registration()).status).to.equal("rejected");
    const back = await raw(b(), OWNER);
    const answer = await back.call<Resumed>("session.resume", { session, lastSeq: 0 });
    expect(answer, JSON.stringify(answer)).to.deep.include({ resumed: true, session });
    await back.call("tabs.close", { target });
  });

  it("a client back through B before A has seen its socket drop (half-open) resumes: its id names A, and A closes the old socket with 4000", async () => {
    const old = new WebSocket(`${a().url}/rpc?resume=on`, { headers: { authorization: `Bearer ${OWNER}` } });
    closers.push(async () => old.terminate());
    const session = await new Promise<string>((resolve, reject) => {
      old.once("upgrade", (response) => resolve(String(response.headers["tabwire-session"])));
      old.once("error", reject);
    });
    expect(session, "the session id names its keeper").to.match(/@a$/);
    const closed = new Promise<number>((resolve) => old.once("close", resolve));
    const back = await raw(b(), OWNER);
    const answer = await back.call<Resumed>("session.resume", { session, lastSeq: 0 });
    expect(answer, JSON.stringify(answer)).to.deep.include({ resumed: true, session });
    expect(await closed, "the code the old socket is closed with").to.equal(4000);
    expect(await back.call("ping")).to.include({ pong: true });
  });

  it(`the typed client cut for ${CUT_MS} ms and sent to B on its return resumes by itself: 1..${BURST_MESSAGES} once, in order, and its call started before the cut is answered`, async () => {
    proxy = await startTcpProxy(portOf(a()));
    const client = await TabwireClient.connect({ url: proxy.url, token: OWNER });
    closers.push(() => client.close());
    const { target } = await client.call("tabs.open", { url: "data:text/html,<title>burst</title>" });
    const texts: string[] = [];
    client.on("console.message", (message: ConsoleMessage) => texts.push(message.text));
    await client.call("console.subscribe", { target });
    const reconnected = nextReconnect(client);
    const logging = client.evaluate({
      target,
      expression: `new Promise((done) => { let n = 0; const burst = () => { for (let k = 0; k < 100 && n < ${BURST_MESSAGES}; k++) console.log(String(++n)); if (n < ${BURST_MESSAGES}) setTimeout(burst, 50); else done(n); }; burst(); })`,
      captureConsole: false,
      timeoutMs: EVENT_BUDGET_MS,
    });
    await eventually(() => Promise.resolve(texts.length > 0), EVENT_BUDGET_MS, "the first message");
    const cut = proxy.cut(CUT_MS);
    // A load balancer in front of the cluster sends the client's return to another instance.
    proxy.retarget(portOf(b()));
    await cut;
    expect(await logging).to.deep.include({ type: "number", value: BURST_MESSAGES });
    const info = await reconnected;
    expect(info.resumed, JSON.stringify(info)).to.equal(true);
    await eventually(() => Promise.resolve(texts.length >= BURST_MESSAGES), EVENT_BUDGET_MS, `${BURST_MESSAGES} messages`);
    expect(texts).to.deep.equal(Array.from({ length: BURST_MESSAGES }, (_, i) => String(i + 1)));
    // The connection is A's session now: its calls run there, through B.
    const { tabs } = await client.call("tabs.list", {});
    expect(tabs.map((tab) => tab.target)).to.include(target);
    await client.call("tabs.close", { target });
  });

  it("a resumed socket on B that drops leaves the session on A for another resume, with what came meanwhile", async () => {
    const { session, target } = await awaySession();
    const back = await raw(b(), OWNER);
    const first = heard(back);
    expect(await back.call<Resumed>("session.resume", { session, lastSeq: 0 })).to.deep.include({ resumed: true });
    await logOnA(target, "console.log('one')");
    await eventually(() => Promise.resolve(first.texts.includes("one")), EVENT_BUDGET_MS, "'one' through B");
    const lastSeq = first.seqs.at(-1) as number;
    back.ws.terminate();
    await logOnA(target, "console.log('two')");

    const again = await raw(a(), OWNER);
    const second = heard(again);
    const answer = await again.call<Resumed>("session.resume", { session, lastSeq });
    expect(answer, JSON.stringify(answer)).to.deep.include({ resumed: true, session, replayed: 1 });
    await eventually(() => Promise.resolve(second.texts.includes("two")), EVENT_BUDGET_MS, "'two' replayed on A");
    expect(second.texts).to.deep.equal(["two"]);
    expect(second.seqs).to.deep.equal([lastSeq + 1]);
    await again.call("tabs.close", { target });
  });

  it("an instance that stops closes the sockets it tunnelled with 1012, and their sessions are resumed through another", async () => {
    const { session, target } = await awaySession();
    const through = await raw(c(), OWNER);
    const first = heard(through);
    expect(await through.call<Resumed>("session.resume", { session, lastSeq: 0 })).to.deep.include({ resumed: true });
    const closedWith = new Promise<number>((resolve) => through.ws.once("close", (code) => resolve(code)));
    await stopHub(c());
    expect(await closedWith, "the close code of the socket on the stopped instance").to.equal(1012);
    await logOnA(target, "console.log('while stopping')");
    const back = await raw(b(), OWNER);
    const second = heard(back);
    const answer = await back.call<Resumed>("session.resume", { session, lastSeq: first.seqs.at(-1) ?? 0 });
    expect(answer, JSON.stringify(answer)).to.deep.include({ resumed: true, session, replayed: 1 });
    await eventually(() => Promise.resolve(second.texts.length > 0), EVENT_BUDGET_MS, "the message logged while it stopped");
    expect(second.texts).to.deep.equal(["while stopping"]);
    await back.call("tabs.close", { target });
  });

  it("after A was killed, a socket resumed through B is closed with 1012 and a resume on B fails clearly and says what was lost", async function () {
    this.timeout(START_TIMEOUT_MS);
    const tunnelled = await awaySession();
    const through = await raw(b(), OWNER);
    expect(await through.call<Resumed>("session.resume", { session: tunnelled.session, lastSeq: 0 })).to.deep.include({ resumed: true });
    const closedWith = new Promise<number>((resolve) => through.ws.once("close", (code) => resolve(code)));
    await proxy?.close();

    const { session, target } = await awaySession();
    await logOnA(target, "console.log('lost')");
    await killHub(a());
    expect(await closedWith, "the close code of the socket whose session lived on A").to.equal(1012);
    const back = await raw(b(), OWNER);
    const answer = await back.call<Resumed>("session.resume", { session, lastSeq: 0 });
    expect(answer.resumed, JSON.stringify(answer)).to.equal(false);
    // The session's owner learns it ended with its instance, not that it never existed.
    expect(answer.reason, JSON.stringify(answer)).to.equal("expired");
    expect(answer.lost, JSON.stringify(answer)).to.deep.include({ fromSeq: 1 });
    expect(answer.lost?.calls).to.be.an("array");
    expect(answer.session).to.not.equal(session);
    // Another token asking after the same session learns nothing of it.
    const stranger = await raw(b(), OTHER);
    expect(await stranger.call<Resumed>("session.resume", { session, lastSeq: 0 })).to.deep.include({ resumed: false, reason: "unknown" });
  });
});
