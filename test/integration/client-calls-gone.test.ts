import { expect } from "chai";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { connect, startTestHub } from "../support/test-hub.js";
import type { Hub } from "../../src/hub.js";

const CLIENT = "shortlived";

interface Stats {
  clients: { clientId: string; calls: number }[];
}

/** Nothing a gone client leaves behind: its calls counted for hub.stats go with its context (real hub, Chromium). */
describe("hub.stats forgets a client whose context closed (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let client: TestRpcClient;

  before(async () => {
    hub = await startTestHub({ CLIENT_IDLE_MS: "200" });
    client = await connect(hub);
  });
  after(async () => {
    await client?.close();
    await hub?.stop();
  });

  it("a client back after its context closed counts its calls from its first again", async () => {
    const callsOf = async (): Promise<number | undefined> =>
      (await client.call<Stats>("hub.stats")).clients.find((entry) => entry.clientId === CLIENT)?.calls;
    await client.call("events.subscribe", { topics: ["clients"] });
    const first = await client.call<{ target: string }>("tabs.open", { clientId: CLIENT, url: "about:blank" });
    for (let call = 0; call < 3; call += 1) await client.call("evaluate", { target: first.target, expression: "1" });
    expect(await callsOf()).to.equal(4);
    const closed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no client.closed within ${EVENT_BUDGET_MS} ms`)), EVENT_BUDGET_MS);
      client.onNotification((method, params) => {
        if (method !== "client.closed" || params.clientId !== CLIENT) return;
        clearTimeout(timer);
        resolve();
      });
    });
    await client.call("tabs.close", { target: first.target });
    await closed;
    await client.call("tabs.open", { clientId: CLIENT, url: "about:blank" });
    expect(await callsOf()).to.equal(1);
  });
});
