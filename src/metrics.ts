import { Counter, Gauge, Registry, type Metric } from "prom-client";
import { CallTally } from "./call-tally.js";
import { ClientCalls } from "./client-calls.js";
import type { Browser } from "./cdp/browser.js";
import type { SessionPool } from "./cdp/session-pool.js";
import type { ConsoleStream } from "./events/console-stream.js";
import type { CallObserver } from "./rpc/router.js";

/** What the metrics read from the rest of the hub at scrape time. */
export interface MetricSources {
  browser: Browser;
  pool: SessionPool;
  console: ConsoleStream;
}

/** The kinds of connection counted by `tabwire_connections`: WebSockets, and MCP sessions. */
export type ConnectionKind = "orchestrator" | "agent" | "mcp" | "cdp";

// Request durations from a ping on a held session (well under a millisecond) to a long agent task.
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The hub's Prometheus metrics (GET /metrics), one registry per hub: calls counted and timed per method and outcome
 * by the router, connections by kind, and what the pool, console stream and browser count, read when scraped.
 */
export class HubMetrics implements CallObserver {
  readonly registry = new Registry();
  #calls = new CallTally(DURATION_BUCKETS);
  /** Calls per client and over the hub, for hub.stats. */
  readonly clientCalls = new ClientCalls();
  #running = 0;
  #connections: Gauge<"kind">;
  #open: Partial<Record<ConnectionKind, number>> = {};
  #clusterDropped: Counter<"reason"> | undefined;
  #refused: Counter<"reason">;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    // The calls are tallied in plain numbers and read when scraped: they are counted on every call.
    for (const metric of [
      this.#calls.counter("tabwire_requests_total", "JSON-RPC requests answered, by method and outcome (ok or the error name)"),
      this.#calls.histogram("tabwire_request_duration_seconds", "Time from a request's arrival to its answer"),
      this.#calls.outcomeCounter("TIMEOUT", { name: "tabwire_timeouts_total", help: "Calls answered TIMEOUT, by method" }),
    ]) {
      this.registry.registerMetric(metric as unknown as Metric);
    }
    const running = (): number => this.#running;
    new Gauge({
      name: "tabwire_inflight_calls",
      help: "Requests running now, over all connections",
      registers,
      collect(this: Gauge) {
        this.set(running());
      },
    });
    this.#connections = new Gauge({
      name: "tabwire_connections",
      help: "Open WebSocket connections by kind, and open MCP sessions (kind mcp)",
      labelNames: ["kind"],
      registers,
    });
    for (const kind of ["orchestrator", "agent", "mcp"] as const) this.#connections.labels(kind).set(0);
    this.#refused = new Counter({
      name: "tabwire_connections_refused_total",
      help: "WebSocket upgrades refused with 503 by MAX_CONNECTIONS or MAX_CONNECTIONS_PER_IP",
      labelNames: ["reason"],
      registers,
    });
    for (const reason of ["max_connections", "max_connections_per_ip"]) this.#refused.labels(reason).inc(0);
    readAtScrape(sources, registers);
  }

  /** A request started (+1) or stopped (-1) running. */
  running(delta: 1 | -1): void {
    this.#running += delta;
  }

  /**
   * A request was answered: `method` is a real method name (never one a caller made up), `outcome` ok or an error name,
   * `about` its target or clientId.
   */
  answered(method: string, outcome: string, call: { seconds: number; about: string | undefined }): void {
    this.#calls.record(method, outcome, call.seconds);
    this.clientCalls.record(call.about, outcome !== "ok");
  }

  /** Cluster (Redis): counts the messages between instances that were dropped, by reason (each shown from 0); returns the counter. */
  clusterDrops(reasons: readonly string[]): (reason: string) => void {
    const help = "Cluster messages dropped: unsigned, stale, forged, replayed, too_large (received, or refused at the sender) or malformed";
    const counter = (this.#clusterDropped ??= new Counter({
      name: "tabwire_cluster_messages_dropped_total",
      help,
      labelNames: ["reason"],
      registers: [this.registry],
    }));
    for (const reason of reasons) counter.labels(reason).inc(0);
    return (reason) => counter.labels(reason).inc();
  }

  /** An upgrade was refused by a connection cap. */
  connectionRefused(reason: string): void {
    this.#refused.labels(reason).inc();
  }

  /** A WebSocket connection opened; returns what to call when it closes. */
  connectionOpened(kind: ConnectionKind): () => void {
    this.#connections.labels(kind).inc();
    this.#open[kind] = (this.#open[kind] ?? 0) + 1;
    return () => {
      this.#connections.labels(kind).dec();
      this.#open[kind] = (this.#open[kind] ?? 1) - 1;
    };
  }

  /** Open connections by kind now (hub.stats). */
  connectionCounts(): Record<string, number> {
    return { ...this.#open };
  }
}

/** The metrics read from the hub's parts when scraped: the pool's sessions, the console stream, the browser. */
function readAtScrape(sources: MetricSources, registers: Registry[]): void {
  // A metric read from the hub's parts when scraped.
  const read = (type: "counter" | "gauge", metric: { name: string; help: string }, value: () => number): void => {
    const collect = function (this: Gauge | Counter): void {
      this.reset();
      this.inc(value());
    };
    if (type === "gauge") new Gauge({ ...metric, registers, collect });
    else new Counter({ ...metric, registers, collect });
  };
  read("gauge", { name: "tabwire_cdp_sessions", help: "Pooled CDP sessions attached now (one per tab)" }, () => sources.pool.stats().live);
  read("counter", { name: "tabwire_cdp_attaches_total", help: "CDP sessions attached since start" }, () => sources.pool.stats().attaches);
  read(
    "counter",
    { name: "tabwire_terminate_execution_total", help: "Runaway scripts stopped with Runtime.terminateExecution" },
    () => sources.pool.stats().terminations,
  );
  read(
    "counter",
    { name: "tabwire_console_dropped_total", help: "Console messages dropped for subscribers that did not keep up" },
    () => sources.console.droppedTotal,
  );
  read(
    "counter",
    { name: "tabwire_browser_restarts_total", help: "Times the hub reconnected to Chrome (relaunching the embedded one)" },
    () => sources.browser.restarts,
  );
  read("gauge", { name: "tabwire_browser_up", help: "1 while Chrome is connected" }, () => (sources.browser.isUp ? 1 : 0));
}
