import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { TabwireClient } from "../../src/client/index.js";
import { launchChromeWithPort, type PortChrome } from "../../src/cdp/chrome-launcher.js";
import { CdpConnection } from "../../src/cdp/connection.js";
import type { Hub } from "../../src/hub.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { startCountingServer, type CountingServer } from "../support/egress-fixture.js";
import { eventually } from "../support/eventually.js";
import { failure } from "../support/rpc-client.js";
import { evaluate, openTab } from "../support/tabs.js";
import { requireChromium, startTestHub } from "../support/test-hub.js";

const ALPHA = "egress-external-alpha";
const BETA = "egress-external-beta";
const SHOP = "egress-external-shop";
const AGENT_KEY = "egress-external-agent-key";
const WEBRTC_SWITCH = "--webrtc-ip-handling-policy=disable_non_proxied_udp";
const INTERNAL_ERROR = -32603;
const CHROMIUM = process.env.CHROME_PATH ?? "/usr/bin/chromium";

/** The browser contexts a Chrome has now, asked on a connection of the test's own. */
async function contextsIn(chrome: PortChrome): Promise<string[]> {
  const connection = await CdpConnection.connect(chrome.wsUrl);
  try {
    return (await connection.send("Target.getBrowserContexts", undefined, { timeoutMs: EVENT_BUDGET_MS })).browserContextIds;
  } finally {
    connection.close();
  }
}

/**
 * With CDP_URL the operator starts Chrome, and an egress proxy holds only what goes over TCP: WebRTC's UDP leaves from
 * the browser itself unless Chrome was started with the switch that forbids it. The hub checks Chrome's command line
 * and refuses a policy it cannot enforce; a policed context never outlives the hub whose proxy it points at.
 */
describe("egress policies on a Chrome of the operator's (CDP_URL): refused when it cannot be held to them, gone with the hub (real hub, Chromium)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let allowed: CountingServer;
  let other: CountingServer;
  let dir: string;
  let accessFile: string;
  const chromes: PortChrome[] = [];
  const open: { close(): Promise<void> }[] = [];
  const stops: (() => Promise<void>)[] = [];

  const chromeWith = async (extraArgs: string[], leaveOut: string[] = []): Promise<PortChrome> => {
    const chrome = await launchChromeWithPort(CHROMIUM, extraArgs, leaveOut);
    chromes.push(chrome);
    return chrome;
  };
  const env = (chrome: PortChrome): Record<string, string> => ({
    CDP_URL: `http://${new URL(chrome.wsUrl).host}`,
    ACCESS_FILE: accessFile,
    AGENT_KEYS: `${AGENT_KEY}:alpha`,
    EGRESS_HOSTS: "allowed.test=127.0.0.1,other.test=127.0.0.1",
  });
  const inProcessHub = async (chrome: PortChrome): Promise<Hub> => {
    const hub = await startTestHub(env(chrome));
    stops.push(() => hub.stop());
    return hub;
  };
  const childHub = async (chrome: PortChrome, dataDir: string): Promise<ChildHub> => {
    const hub = await startChildHub({ ...env(chrome), DATA_DIR: dataDir });
    stops.push(() => hub.stop());
    return hub;
  };
  const client = async (hub: { url: string }, token: string): Promise<TabwireClient> => {
    const connected = await TabwireClient.connect({ url: hub.url, token, reconnect: false });
    open.push(connected);
    return connected;
  };
  const allowedUrl = (where: string): string => `http://allowed.test:${allowed.port}${where}`;

  before(async () => {
    requireChromium();
    [allowed, other, dir] = await Promise.all([
      startCountingServer(),
      startCountingServer(),
      mkdtemp(path.join(os.tmpdir(), "tabwire-egress-cdp-")),
    ]);
    accessFile = path.join(dir, "access.json");
    const access = {
      tokens: [
        { token: ALPHA, clients: ["alpha"] },
        { token: BETA, clients: ["beta"] },
        { token: SHOP, clients: ["shop-1"], policy: "shop-only" },
      ],
      policies: { "shop-only": { egress: { allow: ["allowed.test"] } } },
    };
    await writeFile(accessFile, JSON.stringify(access));
    await chmod(accessFile, 0o600);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((each) => each.close().catch(() => undefined)));
    await Promise.all(stops.splice(0).map((stop) => stop()));
    await Promise.all(chromes.splice(0).map((chrome) => chrome.kill()));
  });
  after(async () => {
    await Promise.all([allowed?.close(), other?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a Chrome started without the WebRTC switch: a client's policy is refused, a token's policed client gets no context, an unpoliced client is served", async () => {
    const chrome = await chromeWith(["--enable-automation"], [WEBRTC_SWITCH]);
    const hub = await inProcessHub(chrome);
    const [alpha, beta, shop] = await Promise.all([client(hub, ALPHA), client(hub, BETA), client(hub, SHOP)]);
    const contexts = await contextsIn(chrome);

    const refused = await failure(alpha.call("clients.configure", { clientId: "alpha", policy: { egress: { allow: ["allowed.test"] } } }));
    expect(refused.code).to.equal(INTERNAL_ERROR);
    expect(refused.message).to.include("cannot enforce an egress policy").and.include(WEBRTC_SWITCH);
    // Nothing was taken: alpha's tab opens in a plain context, as before the call.
    expect((await alpha.call("clients.configure", { clientId: "alpha", persistent: false })).policies).to.equal(undefined);

    const hits = allowed.hits();
    const notMade = await failure(shop.call("tabs.open", { clientId: "shop-1", url: allowedUrl("/page") }));
    expect(notMade.code).to.equal(INTERNAL_ERROR);
    expect(notMade.message).to.include("client shop-1 has an egress policy").and.include(WEBRTC_SWITCH).and.include("not made");
    expect(await contextsIn(chrome), "Chrome's contexts after the refusal").to.have.members(contexts);
    expect(allowed.hits(), "requests of the refused client").to.equal(hits);

    // Names of EGRESS_HOSTS are the proxies' own: a client without one reaches the server by its address.
    const tab = await openTab(beta, `http://127.0.0.1:${allowed.port}/page`, { clientId: "beta" });
    expect((await evaluate(beta, tab.target, "document.title")).type).to.equal("string");
  });

  it("a Chrome that does not show its command line (no --enable-automation): the policy is refused, saying how to start it", async () => {
    const chrome = await chromeWith([]);
    const hub = await inProcessHub(chrome);
    const alpha = await client(hub, ALPHA);
    const refused = await failure(alpha.call("clients.configure", { clientId: "alpha", policy: { egress: { allow: ["allowed.test"] } } }));
    expect(refused.code).to.equal(INTERNAL_ERROR);
    expect(refused.message).to.include("--enable-automation").and.include(WEBRTC_SWITCH);
  });

  it("a Chrome started with both: the policed tab is held to its policy, and a killed hub's policed context goes with it while the plain one is adopted by the next hub", async () => {
    const chrome = await chromeWith(["--enable-automation"]);
    const dataDir = await mkdtemp(path.join(dir, "data-"));
    const first = await childHub(chrome, dataDir);
    const [alpha, beta] = await Promise.all([client(first, ALPHA), client(first, BETA)]);
    const before = new Set(await contextsIn(chrome));
    await alpha.call("clients.configure", { clientId: "alpha", policy: { egress: { allow: ["allowed.test"] } } });
    const policed = await openTab(alpha, allowedUrl("/page"), { clientId: "alpha" });
    const policedContext = (await contextsIn(chrome)).filter((id) => !before.has(id));
    expect(policedContext).to.have.length(1);
    const plain = await openTab(beta, `http://127.0.0.1:${allowed.port}/page`, { clientId: "beta" });
    const otherHits = other.hits();
    const reached = await evaluate(
      alpha,
      policed.target,
      `fetch("http://other.test:${other.port}/data").then(() => "reached", () => "refused")`,
    );
    expect(reached.value).to.equal("refused");
    expect(other.hits(), "requests that reached the refused server").to.equal(otherHits);

    process.kill(first.pid, "SIGKILL");
    await first.stop();
    // Its proxy died with the hub: Chrome drops the context that pointed at it, with its page.
    await eventually(
      async () => !(await contextsIn(chrome)).includes(policedContext[0] as string),
      EVENT_BUDGET_MS,
      "the policed context gone from Chrome",
    );
    const second = await childHub(chrome, dataDir);
    const [alphaAgain, betaAgain] = await Promise.all([client(second, ALPHA), client(second, BETA)]);
    expect((await alphaAgain.call("tabs.list", {})).tabs).to.deep.equal([]);
    expect((await betaAgain.call("tabs.list", {})).tabs.map((tab) => tab.target)).to.deep.equal([plain.target]);
    // A policy given again holds on the new hub's proxy.
    await alphaAgain.call("clients.configure", { clientId: "alpha", policy: { egress: { allow: ["allowed.test"] } } });
    const again = await openTab(alphaAgain, allowedUrl("/page"), { clientId: "alpha" });
    const refused = await evaluate(
      alphaAgain,
      again.target,
      `fetch("http://other.test:${other.port}/data").then(() => "reached", () => "refused")`,
    );
    expect(refused.value).to.equal("refused");
    expect(other.hits()).to.equal(otherHits);
    await betaAgain.call("tabs.close", { target: plain.target });
  });
});
