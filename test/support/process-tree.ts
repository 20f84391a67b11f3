import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The parent pid and state of a process from /proc/<pid>/stat, or null once it is gone. */
function stat(pid: number): { ppid: number; state: string } | null {
  try {
    // The command name is in parentheses and may hold spaces: read the fields after its last ")".
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(ppid), state: state ?? "" };
  } catch {
    return null;
  }
}

/** Whether a process runs (a zombie waiting for its reaper does not). */
export function isRunning(pid: number): boolean {
  const found = stat(pid);
  return found !== null && found.state !== "Z" && found.state !== "X";
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    const child = Number(entry);
    const parent = Number.isInteger(child) ? stat(child)?.ppid : undefined;
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const tree: number[] = [];
  for (const queue = [pid]; queue.length > 0;) {
    const next = queue.shift() as number;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** The children of `pid` whose command line includes `marker`. */
export function childrenWith(pid: number, marker: string): number[] {
  return processTree(pid).filter(
    (child) => child !== pid && stat(child)?.ppid === pid && commandLine(child).some((arg) => arg.includes(marker)),
  );
}

/** The arguments a process was started with. */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** The TCP ports (IPv4 and IPv6) on which any of `pids` has a listening socket. */
export function listeningPorts(pids: readonly number[]): number[] {
  const inodes = new Set(pids.flatMap(socketInodes));
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const row of readFileSync(table, "utf8").trim().split("\n").slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = row.trim().split(/\s+/);
      const [local, state, inode] = [fields[1] ?? "", fields[3], fields[9] ?? ""];
      if (state === "0A" && inodes.has(inode)) ports.add(parseInt(local.split(":")[1] ?? "", 16));
    }
  }
  return [...ports];
}

function socketInodes(pid: number): string[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const inodes: string[] = [];
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.push(match[1]);
    } catch {
      // The fd closed between the listing and the read.
    }
  }
  return inodes;
}
