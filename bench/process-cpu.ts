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

// /proc reports CPU times in clock ticks of USER_HZ, 100 a second on Linux whatever the kernel's own tick.
const USER_HZ = 100;

/**
 * CPU seconds (user + system, all threads) of the child processes this process has waited for so far: fields
 * cutime and cstime of /proc/self/stat. Read before a child starts and after it exits, it is that child's whole
 * life, start-up and teardown included, which a child cannot measure of itself (10 ms resolution).
 */
export function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // The fields after the command name, which is in parentheses and may hold spaces; cutime and cstime are 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / USER_HZ;
}
