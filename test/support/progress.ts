/**
 * Mocha's timeout for a long test (100,000 frames, 1,000 tabs, 10,000 connections): only a safety net. Such a test
 * fails when its run stops moving (`unlessStalled`) or breaks a rule, never on its total time: these shared 2-core
 * machines vary 1.5-2x from run to run, and the slowest long test (about 3 minutes on a good day) still finishes
 * within this on a machine three times slower.
 */
export const LONG_TEST_TIMEOUT_MS = 20 * 60_000;

const WATCH_EVERY_MS = 1_000;

/** How far a long run got and how fast: it reports its own pace, so a slow run shows without failing. */
export class Progress {
  #done = 0;
  #started = performance.now();
  #lastStepAt = performance.now();

  /** `unit` names what is counted, in the plural ("frames", "cycles"). */
  constructor(readonly unit: string) {}

  /** Counts `count` more units done; the run is moving. */
  step(count = 1): void {
    this.#done += count;
    this.#lastStepAt = performance.now();
  }

  /** Units done so far. */
  get done(): number {
    return this.#done;
  }

  /** Milliseconds since the last step (or the start). */
  get idleMs(): number {
    return performance.now() - this.#lastStepAt;
  }

  /** Milliseconds since the start. */
  get elapsedMs(): number {
    return performance.now() - this.#started;
  }

  /** "2000 cycles in 41.2 s (48.5 cycles/s)". */
  pace(): string {
    const seconds = this.elapsedMs / 1000;
    const rate = seconds > 0 ? this.#done / seconds : 0;
    return `${this.#done} ${this.unit} in ${seconds.toFixed(1)} s (${rate.toFixed(rate < 10 ? 2 : 1)} ${this.unit}/s)`;
  }
}

/**
 * Resolves as `run` does, or rejects once `progress` has not moved for `stallMs`: a stalled run fails with how far
 * it got instead of running into mocha's timeout, and `onStall` stops it, so that it leaves nothing running.
 */
export async function unlessStalled<T>(run: Promise<T>, watch: { progress: Progress; stallMs: number; onStall?: () => void }): Promise<T> {
  const { progress, stallMs, onStall } = watch;
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      if (progress.idleMs < stallMs) return;
      onStall?.();
      reject(new Error(`no progress for ${stallMs} ms after ${progress.pace()}`));
    }, WATCH_EVERY_MS);
  });
  try {
    return await Promise.race([run, stalled]);
  } finally {
    clearInterval(timer);
  }
}
