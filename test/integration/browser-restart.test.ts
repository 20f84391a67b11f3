import { once } from "node:events";
import { expect } from "chai";
import type { TabwireClient, TabwireError } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

describe("Chrome killed while the hub runs", function () {
  this.timeout(40_000);
  let hub: Hub;
  let client: TabwireClient;

  before(async () => {
    hub = await startTestHub();
    client = await connectClient(hub);
  });
  after(async () => {
    await client.close();
    await hub.stop();
  });

  it("calls answer BROWSER_UNAVAILABLE within their budget, then the embedded Chrome comes back and calls work", async () => {
    const { browser } = hub.services;
    const { target } = await client.call("tabs.open", {});
    const inFlight = client
      .call("evaluate", { target, expression: "new Promise(() => {})", timeoutMs: EVENT_BUDGET_MS })
      .catch((e: TabwireError) => e);
    expect(await client.call("evaluate", { target, expression: "1" })).to.deep.equal({ type: "number", value: 1 });

    const disconnected = once(browser, "disconnected");
    const started = Date.now();
    process.kill(browser.pid as number, "SIGKILL");
    await disconnected;
    const lost = (await inFlight) as TabwireError;
    // BROWSER_UNAVAILABLE, not TIMEOUT: answered when Chrome went, far from the end of its budget.
    expect(lost.code).to.equal(-32006);
    expect(Date.now() - started).to.be.below(EVENT_BUDGET_MS / 2);

    const reconnected = once(browser, "connected");
    const during = await client.call("evaluate", { target, expression: "1", timeoutMs: 2_000 }).catch((e: TabwireError) => e);
    expect((during as TabwireError).code).to.equal(-32006);
    await reconnected;

    const fresh = await client.call("tabs.open", {});
    expect(await client.call("evaluate", { target: fresh.target, expression: "6 * 7" })).to.deep.equal({ type: "number", value: 42 });
    expect(browser.restarts).to.equal(1);
    const health = await fetch(`http://127.0.0.1:${hub.port}/health`).then((r) => r.json());
    expect(health).to.include({ ok: true, browser: "connected" });
  });
});
