import { expect } from "chai";
import { TabwireClient, type ConsoleMessage } from "../../src/client/index.js";
import { killHub, startClusterHubs, stopHub, type ClusterHub } from "../support/cluster-hub.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { eventually } from "../support/eventually.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { requireChromium } from "../support/test-hub.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

const OWNER = "cluster-resume-owner";
const OTHER = "cluster-resume-other";
const MESSAGES = 50;
const START_TIMEOUT_MS = 60_000;

type Resumed = { resumed: boolean; session: string; reason?: string; lost?: { fromSeq?: number; toSeq?: number; calls: unknown[] } };

describe("session.resume in a cluster: the session lived on instance A, the client comes back on instance B", function () {
  this.timeout(60_000);
  let redis: RedisServer | undefined;
  let hubs: ClusterHub[] = [];
  let proxy: TcpProxy | undefined;
  const closers: (() => Promise<unknown>)[] = [];

  const a = (): ClusterHub => hubs[0] as ClusterHub;
  const b = (): ClusterHub => hubs[1] as ClusterHub;
  const raw = async (hub: ClusterHub, token: string): Promise<TestRpcClient> => {
    const client = await TestRpcClient.connect(hub.url, { token, path: "/rpc?resume=on" });
    closers.push(() => client.close());
    return client;
  };

  /** A typed client on A through the proxy, subscribed to the console of a tab of A; the line is then cut. */
  async function awaySession(): Promise<{ session: string; target: string; heardBefore: string[] }> {
    proxy = await startTcpProxy(Number(new URL(a().url).port));
    const owner = await TabwireClient.connect({ url: proxy.url, token: OWNER, reconnect: false });
    closers.push(() => owner.close());
    const session = owner.session as string;
    expect(session).to.be.a("string");
    const { target } = await owner.call("tabs.open", { url: "data:text/html,<title>a</title>" });
    const heardBefore: string[] = [];
    owner.on("console.message", (message: ConsoleMessage) => heardBefore.push(message.text));
    await owner.call("console.subscribe", { target });
    const closed = new Promise<void>((resolve) => owner.on("disconnected", resolve));
    void proxy.cut(0);
    await closed;
    return { session, target, heardBefore };
  }

  before(async function () {
    this.timeout(START_TIMEOUT_MS + 30_000);
    requireChromium();
    redis = await startRedisServer();
    hubs = await startClusterHubs(["a", "b"], redis.url, { HUB_TOKENS: `${OWNER},${OTHER}`, RESUME_WINDOW_MS: "20000" });
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

  it("B resumes A's session: every message logged while away arrives once, in order, and a later one too; another token learns nothing", async () => {
    const { session, target } = await awaySession();
    // The tab of A logs while its client is away, as seen through a helper of the same token on A.
    const helper = await raw(a(), OWNER);
    await helper.call("evaluate", { target, expression: `for (let n = 1; n <= ${MESSAGES}; n++) console.log(String(n))` });

    const stranger = await raw(b(), OTHER);
    const overheard: string[] = [];
    stranger.onNotification((method, params) => overheard.push(`${method} ${JSON.stringify(params)}`));
    expect(await stranger.call<Resumed>("session.resume", { session, lastSeq: 0 })).to.deep.include({ resumed: false, reason: "unknown" });
    expect(await stranger.call("ping")).to.include({ pong: true });

    const back = await raw(b(), OWNER);
    const texts: string[] = [];
    const seqs: number[] = [];
    back.onNotification((method, params) => {
      if (method !== "console.message") return;
      texts.push(String(params.text));
      if (typeof params.seq === "number") seqs.push(params.seq);
    });
    const answer = await back.call<Resumed & { replayed?: number }>("session.resume", { session, lastSeq: 0 });
    expect(answer, JSON.stringify(answer)).to.deep.include({ resumed: true, session });
    const expected = Array.from({ length: MESSAGES }, (_, i) => String(i + 1));
    await eventually(() => Promise.resolve(texts.length >= MESSAGES), EVENT_BUDGET_MS, `${MESSAGES} replayed messages on B`);
    expect(texts).to.deep.equal(expected);
    await helper.call("evaluate", { target, expression: "console.log('after')" });
    await eventually(() => Promise.resolve(texts.includes("after")), EVENT_BUDGET_MS, "the message logged after the resume");
    expect(texts).to.deep.equal([...expected, "after"]);
    expect(seqs, "sequence numbers keep rising").to.deep.equal([...seqs].sort((x, y) => x - y));
    expect(overheard, "what the other token heard").to.deep.equal([]);
    await back.call("tabs.close", { target });
  });

  it("after A was killed, a resume on B fails clearly and says what was lost", async function () {
    this.timeout(START_TIMEOUT_MS);
    const { session, target } = await awaySession();
    const helper = await raw(a(), OWNER);
    await helper.call("evaluate", { target, expression: "console.log('lost')" });
    await helper.close();
    await killHub(a());
    const back = await raw(b(), OWNER);
    const answer = await back.call<Resumed>("session.resume", { session, lastSeq: 0 });
    expect(answer.resumed, JSON.stringify(answer)).to.equal(false);
    // The session's owner learns it ended with its instance, not that it never existed.
    expect(answer.reason, JSON.stringify(answer)).to.equal("expired");
    expect(answer.lost?.calls).to.be.an("array");
    expect(answer.session).to.not.equal(session);
  });
});
