import { expect } from "chai";
import { Counter, Histogram, Registry, type Metric } from "prom-client";
import { CallTally } from "../../src/call-tally.js";

const BOUNDS = [0.001, 0.01, 0.1, 1];
// Durations on, between, below and above the bounds, for three method and outcome pairs.
const CALLS: [string, string, number][] = [
  ["evaluate", "ok", 0],
  ["evaluate", "ok", 0.001],
  ["evaluate", "ok", 0.0011],
  ["evaluate", "TIMEOUT", 30.5],
  ["ping", "ok", 0.00004],
  ["evaluate", "ok", 0.35],
  ["unknown", "METHOD_NOT_FOUND", 1],
  ["evaluate", "TIMEOUT", 0.2],
];

describe("CallTally", () => {
  it("gives the same Prometheus text as prom-client's Counter and Histogram for the same calls", async () => {
    const expected = new Registry();
    const requests = new Counter({ name: "calls_total", help: "calls", labelNames: ["method", "outcome"], registers: [expected] });
    const durations = new Histogram({
      name: "call_seconds",
      help: "durations",
      labelNames: ["method", "outcome"],
      buckets: BOUNDS,
      registers: [expected],
    });
    const timeouts = new Counter({ name: "timeouts_total", help: "timeouts", labelNames: ["method"], registers: [expected] });
    const actual = new Registry();
    const tally = new CallTally(BOUNDS);
    for (const metric of [
      tally.counter("calls_total", "calls"),
      tally.histogram("call_seconds", "durations"),
      tally.outcomeCounter("TIMEOUT", { name: "timeouts_total", help: "timeouts" }),
    ]) {
      actual.registerMetric(metric as unknown as Metric);
    }

    for (const [method, outcome, seconds] of CALLS) {
      requests.labels(method, outcome).inc();
      durations.labels(method, outcome).observe(seconds);
      if (outcome === "TIMEOUT") timeouts.labels(method).inc();
      tally.record(method, outcome, seconds);
    }

    const text = await actual.metrics();
    expect(text).to.equal(await expected.metrics());
    expect(text).to.include('call_seconds_bucket{le="0.001",method="evaluate",outcome="ok"} 2');
    expect(text).to.include('timeouts_total{method="evaluate"} 2');
  });

  it("shows no samples before the first call, and none after a reset", async () => {
    const registry = new Registry();
    const tally = new CallTally(BOUNDS);
    const counter = tally.counter("calls_total", "calls");
    registry.registerMetric(counter as unknown as Metric);
    expect(await registry.metrics()).to.not.match(/^calls_total\{/m);
    tally.record("ping", "ok", 0.0001);
    expect(await registry.metrics()).to.match(/^calls_total\{method="ping",outcome="ok"\} 1$/m);
    registry.resetMetrics();
    expect(await registry.metrics()).to.not.match(/^calls_total\{/m);
  });
});
