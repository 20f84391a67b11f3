/** One sample line of a Prometheus text exposition: `name{key="value",...} value`. */
export interface MetricSample {
  labels: Record<string, string>;
  value: number;
}

/** Every sample of the metric `name` in `text` (the exposition GET /metrics answers). */
export function samplesOf(text: string, name: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split("\n")) {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    samples.push({ labels, value: Number(match[3]) });
  }
  return samples;
}
