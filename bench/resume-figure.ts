import WebSocket from "ws";
import { TabwireClient, type ConsoleMessage, type Reconnected } from "../src/client/index.js";
import { startTcpProxy } from "../test/support/tcp-proxy.js";
import type { Figure } from "./figure.js";
import { liveHeapBytes } from "./live-heap.js";
import { startHubProcess } from "./load.js";
import { median } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const MESSAGES = 2_000;
const CUT_MS = 2_000;
const IDLE_CONNECTIONS = 500;
// The bench hub's window: long enough to read the dropped sessions' memory, short enough to wait for their end.
const WINDOW_MS = 15_000;
const DELIVERY_TIMEOUT_MS = 60_000;

/**
 * On a hub of their own (with its inspector, so memory is read after a forced GC): the time from a typed client's
 * reconnect after a 2 s cut to the last of 2,000 console messages logged during the cut, and the hub's live heap per
 * idle connection that asked for resume, connected and dropped (kept for RESUME_WINDOW_MS).
 */
export async function resumeFigures(cdpUrl: string, rounds: number): Promise<Figure[]> {
  const hub = await startHubProcess({ inspect: true, env: { CDP_URL: cdpUrl, RESUME_WINDOW_MS: String(WINDOW_MS) } });
  try {
    const resumeMs: number[] = [];
    for (let round = 0; round < rounds; round++) resumeMs.push(await resumeAfterCut(hub.url, hub.port));
    const memory = hub.inspectorUrl ? await idleMemory(hub.url, hub.inspectorUrl) : null;
    return [
      report(`resume after a ${CUT_MS / 1000} s cut: reconnect to the last of ${MESSAGES} missed console messages`, median(resumeMs), "ms"),
      ...(memory
        ? [
            report("hub live heap per idle /rpc connection, no resume asked (after GC)", memory.plainKb, "KB"),
            report("hub live heap per idle /rpc connection that asked for resume (after GC)", memory.resumableKb, "KB"),
            report("hub live heap per dropped idle session kept for RESUME_WINDOW_MS (after GC)", memory.droppedKb, "KB"),
          ]
        : []),
    ];
  } finally {
    await hub.stop();
  }
}

function report(name: string, value: number, unit: string): Figure {
  return { name, label: name, hub: value, alternative: Number.NaN, unit, ratio: Number.NaN, goal: "(report)" };
}

/**
 * One round: subscribe through a proxy, cut it, log MESSAGES from another connection, time reconnect to the last one.
 * With `returnTo`, the proxy sends the client's return to that port (another instance of a cluster).
 */
export async function resumeAfterCut(hubUrl: string, hubPort: number, returnTo = hubPort): Promise<number> {
  const proxy = await startTcpProxy(hubPort);
  const client = await TabwireClient.connect({ url: proxy.url });
  const logger = await TabwireClient.connect({ url: hubUrl, reconnect: false });
  try {
    const { target } = await client.call("tabs.open", { url: "about:blank" });
    let count = 0;
    let lastAt = Number.NaN;
    const all = new Promise<void>((resolve) =>
      client.on("console.message", (_message: ConsoleMessage) => {
        if (++count < MESSAGES) return;
        lastAt = performance.now();
        resolve();
      }),
    );
    const reconnected = new Promise<Reconnected>((resolve) => client.on("reconnected", (info: Reconnected) => resolve(info)));
    await client.call("console.subscribe", { target });
    const restored = proxy.cut(CUT_MS);
    proxy.retarget(returnTo);
    await logger.evaluate({ target, expression: `for (let i = 1; i <= ${MESSAGES}; i++) console.log(String(i))`, captureConsole: false });
    await restored;
    await within(all, "the missed messages");
    const info = await within(reconnected, "the reconnect");
    if (!info.resumed) throw new Error(`the session was not resumed: ${JSON.stringify(info)}`);
    await client.call("tabs.close", { target });
    return lastAt - proxy.lastConnectedAt();
  } finally {
    await Promise.all([client.close(), logger.close()]);
    await proxy.close();
  }
}

/**
 * Live heap per idle connection: plain (against the heap once they closed), asking for resume, and dropped within
 * the window (both against the heap once the window ended and the sessions went).
 */
async function idleMemory(hubUrl: string, inspectorUrl: string): Promise<{ plainKb: number; resumableKb: number; droppedKb: number }> {
  const inspector = await WsCaller.open(inspectorUrl);
  try {
    const perConnectionKb = (before: number, after: number): number => (after - before) / IDLE_CONNECTIONS / 1024;
    // Warm: the code and pools a connection brings in are counted at rest.
    await Promise.all((await openMany(hubUrl, true, 20)).map((ws) => ws.terminate()));
    const plain = await openMany(hubUrl, false, IDLE_CONNECTIONS);
    const withPlain = await liveHeapBytes(inspector);
    await closeAll(plain);
    const plainKb = perConnectionKb(await liveHeapBytes(inspector), withPlain);
    const resumable = await openMany(hubUrl, true, IDLE_CONNECTIONS);
    const withResumable = await liveHeapBytes(inspector);
    await Promise.all(resumable.map((ws) => dropped(ws)));
    const withDropped = await liveHeapBytes(inspector);
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 1_000));
    const after = await liveHeapBytes(inspector);
    return { plainKb, resumableKb: perConnectionKb(after, withResumable), droppedKb: perConnectionKb(after, withDropped) };
  } finally {
    await inspector.close();
  }
}

async function openMany(hubUrl: string, resume: boolean, count: number): Promise<WebSocket[]> {
  const headers = resume ? { "tabwire-resume": "on" } : undefined;
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(`${hubUrl}/rpc`, { headers, perMessageDeflate: false });
          ws.once("open", () => resolve(ws));
          ws.once("error", reject);
        }),
    ),
  );
}

/** Ends a socket without a close frame: the hub sees a drop (1006) and keeps a resumable session. */
function dropped(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    ws.once("close", () => resolve());
    ws.terminate();
  });
}

async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(sockets.map((ws) => new Promise<void>((resolve) => (ws.once("close", () => resolve()), ws.close(1000)))));
}

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not come within ${DELIVERY_TIMEOUT_MS} ms`)), DELIVERY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
