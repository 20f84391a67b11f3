import { answered, compareLatency, evaluateViaHub, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { WsCaller } from "./ws-caller.js";

// Each call opens and closes a connection, about 4 ms here: a fifth of the evaluate figure's calls keeps it short.
const CALLS_DIVISOR = 5;

/**
 * Median evaluate("1+1") through the hub against connect-per-command, what a one-shot script (the old eval-server)
 * does: a new CDP WebSocket, Target.attachToTarget, Runtime.evaluate, close, timed until the socket is closed.
 */
export async function connectPerCommandFigure(context: BenchContext): Promise<Figure> {
  const { cdpUrl, tabId } = context;
  const result = await compareLatency({
    viaHub: () => evaluateViaHub(context),
    viaAlternative: () => evaluateOnFreshConnection(cdpUrl, tabId),
    warmupCalls: 20,
    calls: Math.max(1, Math.round(context.calls / CALLS_DIVISOR)),
    rounds: context.rounds,
  });
  return {
    name: 'evaluate("1+1") round trip: hub / connect-per-command (new CDP WebSocket + attachToTarget + Runtime.evaluate + close)',
    label: "evaluate 1+1 vs connect-per-command CDP",
    unit: "ms",
    goal: "<= 0.25",
    ...result,
  };
}

async function evaluateOnFreshConnection(cdpUrl: string, tabId: string): Promise<void> {
  const caller = await WsCaller.open(cdpUrl);
  try {
    const attached = await answered(caller.send({ method: "Target.attachToTarget", params: { targetId: tabId, flatten: true } }));
    const sessionId = (attached.result as { sessionId: string }).sessionId;
    await answered(caller.send({ method: "Runtime.evaluate", params: { expression: "1+1", returnByValue: true }, sessionId }));
  } finally {
    await caller.close();
  }
}
