import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startCountingServer, type CountingServer } from "../support/egress-fixture.js";
import { failure } from "../support/rpc-client.js";
import { evaluate, openTab } from "../support/tabs.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

const POLICY = { egress: { allow: ["allowed.test"] } };

describe("egress policy: a client's browser reaches only what its policy allows (real hub, Chromium, loopback servers)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let hub: Hub;
  let allowed: CountingServer;
  let other: CountingServer;
  let client: TabwireClient;
  let allowedOrigin: string;
  let otherOrigin: string;

  before(async () => {
    [allowed, other] = await Promise.all([startCountingServer(), startCountingServer()]);
    allowedOrigin = `http://allowed.test:${allowed.port}`;
    otherOrigin = `http://other.test:${other.port}`;
    hub = await startTestHub({
      EGRESS_HOSTS: "allowed.test=127.0.0.1,other.test=127.0.0.1",
      // A service worker needs a secure origin: the test names are made one.
      CHROME_ARGS: `--unsafely-treat-insecure-origin-as-secure=${allowedOrigin}`,
    });
    client = await connectClient(hub);
  });
  after(async () => {
    await client?.close();
    await hub?.stop();
    await Promise.all([allowed?.close(), other?.close()]);
  });

  it("navigates to the allowed host and refuses the other name, which never reaches its server", async () => {
    await client.call("clients.configure", { clientId: "policed-nav", policy: POLICY });
    const tab = await openTab(client, `${allowedOrigin}/page`, { clientId: "policed-nav" });
    expect(allowed.hits("/page")).to.equal(1);
    const refused = await failure(client.call("navigate", { target: tab.target, url: `${otherOrigin}/page` }));
    expect(refused.code).to.equal(-32012);
    expect(other.hits()).to.equal(0);
    const data = await evaluate(client, tab.target, `fetch("${allowedOrigin}/data").then((r) => r.json())`);
    expect(data.value).to.deep.equal({ ok: true });
  });
});
