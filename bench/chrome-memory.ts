import { readdirSync, readFileSync } from "node:fs";

/** What the hub's embedded Chromium holds: its processes and their proportional set size together. */
export interface ChromeMemory {
  processes: number;
  /** The sum of each process's PSS (/proc/<pid>/smaps_rollup): memory shared between them counted once in all. */
  pssMb: number;
}

/**
 * The Chromium processes under a hub's process (its embedded Chrome: the browser, its zygotes, renderers, GPU and
 * utility processes; not the crash handler, which Chrome detaches) and their PSS. Linux only; a process that ends
 * while it is read counts as gone.
 */
export function chromeMemory(hubPid: number): ChromeMemory {
  const pids = descendants(hubPid).filter((pid) => isChromium(pid));
  let pssKb = 0;
  for (const pid of pids) pssKb += pssKbOf(pid);
  return { processes: pids.length, pssMb: pssKb / 1024 };
}

function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    const parent = Number.isInteger(pid) ? parentOf(pid) : null;
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  for (const queue = [...(children.get(root) ?? [])]; queue.length > 0;) {
    const next = queue.shift() as number;
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

function parentOf(pid: number): number | null {
  try {
    // The command name is in parentheses and may hold spaces: the fields after its last ")" are state, then ppid.
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function isChromium(pid: number): boolean {
  try {
    return /chrom/i.test(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "");
  } catch {
    return false;
  }
}

function pssKbOf(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
