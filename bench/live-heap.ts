import type { WsCaller } from "./ws-caller.js";

/** Where Node's inspector listens, from what a process started with `--inspect` printed; null if it did not say. */
export function inspectorUrlIn(output: string): string | null {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1] ?? null;
}

/** The V8 heap in use right after a full GC forced through Node's inspector, in bytes: the data the process holds. */
export async function liveHeapBytes(inspector: WsCaller): Promise<number> {
  await inspector.send({ method: "HeapProfiler.collectGarbage" });
  const usage = await inspector.send({ method: "Runtime.getHeapUsage" });
  const used = (usage.result as { usedSize?: number } | undefined)?.usedSize;
  if (typeof used !== "number") throw new Error(`the inspector did not say the heap size: ${JSON.stringify(usage)}`);
  return used;
}
