import { expect } from "chai";
import { TabwireClient, TabwireError } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { samplesOf } from "../support/metrics-text.js";
import { startTestHub } from "../support/test-hub.js";

const TOKEN = "metrics-token-1";

/** The value of the sample of `name` with exactly `labels`, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  const found = samplesOf(text, name).find(
    (candidate) =>
      Object.keys(candidate.labels).length === wanted.length && wanted.every(([key, value]) => candidate.labels[key] === value),
  );
  return found?.value ?? 0;
}

describe("GET /metrics (Prometheus text, real hub and Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let client: TabwireClient;
  const scrape = async (): Promise<string> => {
    const response = await fetch(`${hub.url.replace("ws:", "http:")}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^text\/plain/);
    return response.text();
  };

  before(async () => {
    hub = await startTestHub({ HUB_TOKEN: TOKEN, AUTH_KEY: "agent-key-metrics" });
    client = await TabwireClient.connect({ url: hub.url, token: TOKEN, reconnect: false });
  });
  after(async () => {
    await client.close();
    await hub.stop();
  });

  it("needs the token like the rest of the HTTP API", async () => {
    expect((await fetch(`${hub.url.replace("ws:", "http:")}/metrics`)).status).to.equal(401);
  });

  it("counts requests per method and outcome, timeouts, terminations, connections and CDP sessions", async () => {
    const { target } = await client.call("tabs.open", { url: "about:blank" });
    for (let i = 0; i < 3; i++) await client.call("ping", {});
    await client.evaluate({ target, expression: "1 + 1" });
    await client.evaluate({ target, expression: "2 + 2" });
    const thrown = await client.evaluate({ target, expression: "throw new Error('x')" }).catch((error: unknown) => error);
    expect(thrown).to.be.instanceOf(TabwireError);
    const spun = await client.evaluate({ target, expression: "while (true) {}", timeoutMs: 300 }).catch((error: unknown) => error);
    expect((spun as TabwireError).data).to.include({ terminated: true });
    const unknown = await (client.call as (method: string, params: object) => Promise<unknown>)("no.such.method", {}).catch(
      (error: unknown) => error,
    );
    expect((unknown as TabwireError).code).to.equal(-32601);
    const agent = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: "metrics-agent" });
    await agent.registration();

    const text = await scrape();
    expect(sample(text, "tabwire_requests_total", { method: "ping", outcome: "ok" })).to.equal(3);
    expect(sample(text, "tabwire_requests_total", { method: "evaluate", outcome: "ok" })).to.equal(2);
    expect(sample(text, "tabwire_requests_total", { method: "evaluate", outcome: "EVALUATION_FAILED" })).to.equal(1);
    expect(sample(text, "tabwire_requests_total", { method: "evaluate", outcome: "TIMEOUT" })).to.equal(1);
    expect(sample(text, "tabwire_requests_total", { method: "unknown", outcome: "METHOD_NOT_FOUND" })).to.equal(1);
    expect(text).to.not.include("no.such.method");
    expect(sample(text, "tabwire_request_duration_seconds_count", { method: "evaluate", outcome: "ok" })).to.equal(2);
    expect(sample(text, "tabwire_timeouts_total", { method: "evaluate" })).to.equal(1);
    expect(sample(text, "tabwire_terminate_execution_total")).to.equal(1);
    expect(sample(text, "tabwire_connections", { kind: "orchestrator" })).to.equal(1);
    expect(sample(text, "tabwire_connections", { kind: "agent" })).to.equal(1);
    expect(sample(text, "tabwire_cdp_sessions")).to.be.at.least(1);
    expect(sample(text, "tabwire_inflight_calls")).to.equal(0);
    expect(sample(text, "tabwire_browser_restarts_total")).to.equal(0);
    expect(sample(text, "tabwire_browser_up")).to.equal(1);
    expect(text).to.include("tabwire_console_dropped_total 0");

    agent.close();
    await agent.closed;
    await client.call("tabs.close", { target });
  });

  it("shows a call in flight while it runs", async () => {
    const { target } = await client.call("tabs.open", { url: "about:blank" });
    const running = client.evaluate({ target, expression: "new Promise(r => setTimeout(r, 1500))" });
    // Each scrape is a round trip to the hub; the call shows once the hub has dispatched it (at most 50 scrapes).
    let inflight = 0;
    for (let tries = 0; tries < 50 && inflight === 0; tries++) inflight = sample(await scrape(), "tabwire_inflight_calls");
    expect(inflight).to.equal(1);
    await running;
    expect(sample(await scrape(), "tabwire_inflight_calls")).to.equal(0);
    await client.call("tabs.close", { target });
  });
});
