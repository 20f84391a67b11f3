/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The p-th percentile (0-100) of some numbers. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Times `count` sequential runs of `call` and returns each duration in milliseconds. */
export async function timeSequential(count: number, call: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times;
}

/** Runs `call` `count` times with `inFlight` calls outstanding at any moment and returns the calls per second. */
export async function callsPerSecond(count: number, inFlight: number, call: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < count) {
      started++;
      await call();
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return count / ((performance.now() - began) / 1000);
}
