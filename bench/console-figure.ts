import type { BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { median } from "./stats.js";
import type { WsCaller } from "./ws-caller.js";

const MESSAGES = 20_000;

/** The page code that logs MESSAGES messages in a loop. */
const LOOP = `for (let i = 0; i < ${MESSAGES}; i++) console.log("m" + i); ${MESSAGES}`;

/**
 * Console messages per second that reach a hub subscriber, against the rate a raw CDP client with Runtime enabled
 * receives the same loop's Runtime.consoleAPICalled events; timed from sending the loop to the last message.
 */
export async function consoleFigure(context: BenchContext): Promise<Figure> {
  const { hub, raw, target, sessionId, rounds } = context;
  await hub.send({ jsonrpc: "2.0", method: "console.subscribe", params: { target } });
  await raw.send({ method: "Runtime.enable", sessionId });
  const hubRates: number[] = [];
  const rawRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    hubRates.push(await rate(hub, (m) => m.method === "console.message", () => hub.send({ jsonrpc: "2.0", method: "evaluate", params: { target, expression: LOOP, captureConsole: false } })));
    rawRates.push(await rate(raw, (m) => m.method === "Runtime.consoleAPICalled" && m.sessionId === sessionId, () => raw.send({ method: "Runtime.evaluate", params: { expression: LOOP }, sessionId })));
  }
  const ratios = hubRates.map((h, i) => h / (rawRates[i] ?? h));
  return {
    name: "console messages per second to a subscriber: hub / raw CDP Runtime.consoleAPICalled",
    hub: median(hubRates),
    alternative: median(rawRates),
    unit: "msg/s",
    ratio: median(ratios),
    goal: ">= 0.95",
  };
}

async function rate(caller: WsCaller, counts: (message: Record<string, unknown>) => boolean, start: () => Promise<unknown>): Promise<number> {
  let seen = 0;
  const started = performance.now();
  const all = new Promise<number>((resolve) => {
    const stop = caller.onEvent((message) => {
      if (!counts(message) || ++seen < MESSAGES) return;
      stop();
      resolve(performance.now());
    });
  });
  await start();
  const finished = await all;
  return MESSAGES / ((finished - started) / 1000);
}
