import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time a process has used so far, in nanoseconds, over all its threads (the main thread, libuv's pool, V8's
 * helpers): the sum of the first field of /proc/<pid>/task/<tid>/schedstat. Finer than /proc/<pid>/stat's 10 ms ticks,
 * so a block of a hundred calls is measured, not rounded away.
 */
export function cpuNanos(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A thread that ended between the listing and the read has nothing more to add.
    }
  }
  return total;
}

/** Runs `work` and returns how many nanoseconds of CPU the process `pid` used meanwhile. */
export async function cpuDuring(pid: number, work: () => Promise<unknown>): Promise<number> {
  const before = cpuNanos(pid);
  await work();
  return cpuNanos(pid) - before;
}
