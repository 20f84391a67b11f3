import { answered, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { median } from "./stats.js";
import type { WsCaller } from "./ws-caller.js";

const MESSAGES = 10_000;
const DELIVERY_TIMEOUT_MS = 30_000;

/** What one loop gave: how fast the page logged, and how fast a reader got the messages. */
interface LoopRates {
  produced: number;
  delivered: number;
}

/** The page code that logs MESSAGES tagged messages in a loop and gives the loop's own time in milliseconds. */
function loop(tag: string): string {
  return `{ const started = performance.now(); for (let i = 0; i < ${MESSAGES}; i++) console.log("${tag} " + i); performance.now() - started }`;
}

/**
 * Console messages per second that reach a hub subscriber against the rate the page logged them in the same loop
 * (the loop times itself; CDP streams the messages while it runs); for reference, the same ratio for a raw CDP
 * reader with Runtime enabled on a tab of its own that the hub never attached to, rounds interleaved.
 */
export async function consoleFigures(context: BenchContext): Promise<Figure[]> {
  const rawTab = await openRawTab(context.raw);
  const viaHub: LoopRates[] = [];
  const viaRaw: LoopRates[] = [];
  try {
    for (let round = 0; round < context.rounds; round++) {
      viaHub.push(await hubLoop(context, `h${round}`));
      viaRaw.push(await rawLoop(context.raw, rawTab.sessionId, `r${round}`));
    }
  } finally {
    await context.raw.send({ method: "Target.closeTarget", params: { targetId: rawTab.targetId } });
  }
  const hubShares = viaHub.map((r) => r.delivered / r.produced);
  const rawShares = viaRaw.map((r) => r.delivered / r.produced);
  return [
    {
      name: "console messages delivered per second to a hub subscriber / messages the page produced per second (same loop)",
      label: "console delivered vs page produced",
      unit: "msg/s",
      goal: ">= 0.95",
      hub: median(viaHub.map((r) => r.delivered)),
      alternative: median(viaHub.map((r) => r.produced)),
      ratio: median(hubShares),
    },
    {
      name: "console delivered / produced: hub subscriber / raw CDP Runtime.consoleAPICalled reader (tab of its own)",
      label: "console delivered share vs raw CDP reader",
      unit: "delivered/produced",
      goal: "(report)",
      hub: median(hubShares),
      alternative: median(rawShares),
      ratio: median(hubShares.map((h, i) => h / (rawShares[i] ?? h))),
    },
  ];
}

/** A blank tab with a raw flattened session, out of the hub's sight: its console reaches only the raw reader. */
async function openRawTab(raw: WsCaller): Promise<{ targetId: string; sessionId: string }> {
  const created = await answered(raw.send({ method: "Target.createTarget", params: { url: "about:blank" } }));
  const { targetId } = created.result as { targetId: string };
  const attached = await answered(raw.send({ method: "Target.attachToTarget", params: { targetId, flatten: true } }));
  return { targetId, sessionId: (attached.result as { sessionId: string }).sessionId };
}

/** One loop with the hub as the only CDP client reading the tab's console. */
async function hubLoop(context: BenchContext, tag: string): Promise<LoopRates> {
  const { hub, target } = context;
  const subscribed = await answered(hub.send({ jsonrpc: "2.0", method: "console.subscribe", params: { target } }));
  const { subscriptionId } = subscribed.result as { subscriptionId: string };
  try {
    const run = (): Promise<Record<string, unknown>> =>
      answered(hub.send({ jsonrpc: "2.0", method: "evaluate", params: { target, expression: loop(tag), captureConsole: false } }));
    const classify = (message: Record<string, unknown>): number => {
      const params = message.params as { subscriptionId?: string; text?: string; count?: number } | undefined;
      if (params?.subscriptionId !== subscriptionId) return 0;
      if (message.method === "console.dropped") return -(params.count ?? 0);
      return message.method === "console.message" && params.text?.startsWith(`${tag} `) ? 1 : 0;
    };
    return await measureLoop(hub, { run, classify, loopMs: (answer) => (answer.result as { value: number }).value });
  } finally {
    await answered(hub.send({ jsonrpc: "2.0", method: "console.unsubscribe", params: { subscriptionId } }));
  }
}

/** One loop read by a raw CDP client with Runtime enabled on its held session. */
async function rawLoop(raw: WsCaller, sessionId: string, tag: string): Promise<LoopRates> {
  await answered(raw.send({ method: "Runtime.enable", sessionId }));
  try {
    const run = (): Promise<Record<string, unknown>> =>
      answered(raw.send({ method: "Runtime.evaluate", params: { expression: loop(tag), returnByValue: true }, sessionId }));
    const classify = (message: Record<string, unknown>): number => {
      if (message.method !== "Runtime.consoleAPICalled" || message.sessionId !== sessionId) return 0;
      const text = (message.params as { args?: Array<{ value?: unknown }> }).args?.[0]?.value;
      return typeof text === "string" && text.startsWith(`${tag} `) ? 1 : 0;
    };
    return await measureLoop(raw, { run, classify, loopMs: (answer) => (answer.result as { result: { value: number } }).result.value });
  } finally {
    await answered(raw.send({ method: "Runtime.disable", sessionId }));
  }
}

/** How to run one loop and read what comes back. */
interface Loop {
  run: () => Promise<Record<string, unknown>>;
  /** 1 for a message of the loop, -n for n of its messages reported lost, 0 for anything else. */
  classify: (message: Record<string, unknown>) => number;
  /** The loop's own time, from the answer to the call that ran it. */
  loopMs: (answer: Record<string, unknown>) => number;
}

/**
 * Runs the loop and counts its messages as they arrive: delivered = messages received / time from sending the loop
 * to the last of them; produced = MESSAGES / the loop's own time.
 */
async function measureLoop(caller: WsCaller, loop: Loop): Promise<LoopRates> {
  const { run, classify, loopMs } = loop;
  let seen = 0;
  let lost = 0;
  let last = 0;
  let stop = (): void => undefined;
  let timer: NodeJS.Timeout | undefined;
  const all = new Promise<void>((resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`console: ${seen} of ${MESSAGES} messages arrived (${lost} reported dropped) within ${DELIVERY_TIMEOUT_MS} ms`)),
      DELIVERY_TIMEOUT_MS,
    );
    stop = caller.onEvent((message) => {
      const kind = classify(message);
      if (kind > 0) {
        seen++;
        last = performance.now();
      } else lost -= kind;
      if (seen + lost < MESSAGES) return;
      clearTimeout(timer);
      resolve();
    });
  });
  // The deadline may pass while the loop still runs: keep that rejection for the await below, not unhandled.
  all.catch(() => undefined);
  try {
    const sent = performance.now();
    const answer = await run();
    await all;
    return { produced: MESSAGES / (loopMs(answer) / 1000), delivered: seen === 0 ? 0 : seen / ((last - sent) / 1000) };
  } finally {
    clearTimeout(timer);
    stop();
  }
}
