/** A metric in the shape prom-client's Registry reads when scraped (`registerMetric`). */
export interface ScrapedMetric {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  aggregator: "sum";
  get(): { name: string; help: string; type: string; aggregator: "sum"; values: MetricValue[] };
  reset(): void;
}

interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

interface Tally {
  method: string;
  outcome: string;
  count: number;
  seconds: number;
  /** Calls per bucket, not cumulative: index i counts durations in (bounds[i-1], bounds[i]]; the last, those above all. */
  buckets: number[];
}

/**
 * Calls counted and timed per method and outcome in plain numbers, turned into Prometheus samples only when scraped.
 * prom-client's children validate and hash their labels on every `inc` and `observe`: a tenth of the hub's own CPU
 * on a short call. The samples are those prom-client's Counter and Histogram would give for the same calls.
 */
export class CallTally {
  #bounds: readonly number[];
  #tallies = new Map<string, Tally>();

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
  }

  /** One call answered: `method` a real method name (or "unknown"), `outcome` ok or an error name. */
  record(method: string, outcome: string, seconds: number): void {
    const key = `${method}\n${outcome}`;
    let tally = this.#tallies.get(key);
    if (!tally) {
      tally = { method, outcome, count: 0, seconds: 0, buckets: new Array<number>(this.#bounds.length + 1).fill(0) };
      this.#tallies.set(key, tally);
    }
    tally.count++;
    tally.seconds += seconds;
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && seconds > (bounds[i] as number)) i++;
    tally.buckets[i] = (tally.buckets[i] as number) + 1;
  }

  /** `name`: the calls per method and outcome. */
  counter(name: string, help: string): ScrapedMetric {
    return this.#scraped({ name, help, type: "counter" }, () =>
      [...this.#tallies.values()].map((t) => ({ value: t.count, labels: { method: t.method, outcome: t.outcome } })),
    );
  }

  /** `name`: the calls of one outcome per method (e.g. TIMEOUT). */
  outcomeCounter(outcome: string, metric: { name: string; help: string }): ScrapedMetric {
    return this.#scraped({ ...metric, type: "counter" }, () =>
      [...this.#tallies.values()].filter((t) => t.outcome === outcome).map((t) => ({ value: t.count, labels: { method: t.method } })),
    );
  }

  /** `name`: the durations per method and outcome, as a Prometheus histogram. */
  histogram(name: string, help: string): ScrapedMetric {
    return this.#scraped({ name, help, type: "histogram" }, () =>
      [...this.#tallies.values()].flatMap((t) => this.#histogramValues(name, t)),
    );
  }

  // A metric read from the tallies when scraped; resetting it forgets every tally.
  #scraped(metric: Pick<ScrapedMetric, "name" | "help" | "type">, values: () => MetricValue[]): ScrapedMetric {
    const get = (): ReturnType<ScrapedMetric["get"]> => ({ ...metric, aggregator: "sum", values: values() });
    return { ...metric, aggregator: "sum", get, reset: () => this.#tallies.clear() };
  }

  #histogramValues(name: string, tally: Tally): MetricValue[] {
    const labels = { method: tally.method, outcome: tally.outcome };
    let below = 0;
    const buckets = this.#bounds.map((le, i) => {
      below += tally.buckets[i] as number;
      return { value: below, labels: { le, ...labels }, metricName: `${name}_bucket` };
    });
    return [
      ...buckets,
      { value: tally.count, labels: { le: "+Inf", ...labels }, metricName: `${name}_bucket` },
      { value: tally.seconds, labels, metricName: `${name}_sum` },
      { value: tally.count, labels, metricName: `${name}_count` },
    ];
  }
}
