import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { answered, compareLatency, compareThroughput, evaluateRaw, evaluateViaHub, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { hubListening } from "./hub-listening.js";
import { WsCaller } from "./ws-caller.js";

const RELAY = fileURLToPath(new URL("./bare-relay.js", import.meta.url));
const IN_FLIGHT = 16;

/**
 * What the two-hop path costs by itself on this machine: the hub against a bare relay process (bench/bare-relay.ts),
 * and that relay against raw CDP, for the evaluate round trip and for throughput with 16 in flight. Reported, no
 * goal: they say how much of the evaluate goals' gap is the extra process and how much is the hub.
 */
export async function relayFloorFigures(context: BenchContext): Promise<Figure[]> {
  const child = spawn(process.execPath, [RELAY], {
    env: { ...process.env, CDP_URL: context.cdpUrl, TAB_ID: context.tabId },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const relay = await WsCaller.open(`${await hubListening(child, 10_000)}/rpc`);
    const viaRelay = async (): Promise<void> => {
      const answer = await answered(relay.send({ jsonrpc: "2.0", method: "evaluate", params: { expression: "1+1" } }));
      if ((answer.result as { value?: unknown }).value !== 2)
        throw new Error(`the bare relay evaluated 1+1 to ${JSON.stringify(answer.result)}`);
    };
    const viaRaw = (): Promise<unknown> => evaluateRaw(context);
    const { rounds, calls } = context;
    const hubVsRelay = await compareLatency({
      viaHub: () => evaluateViaHub(context),
      viaAlternative: viaRelay,
      warmupCalls: 200,
      calls,
      rounds,
    });
    const relayVsRaw = await compareLatency({ viaHub: viaRelay, viaAlternative: viaRaw, warmupCalls: 200, calls, rounds });
    const relayThroughput = await compareThroughput(
      { viaHub: viaRelay, viaAlternative: viaRaw, warmupCalls: 100, calls: calls * 2, rounds },
      IN_FLIGHT,
    );
    await relay.close();
    return [
      {
        name: 'evaluate("1+1") round trip: hub / a bare relay process (ws -> held CDP session, same CDP params, nothing else)',
        label: "evaluate 1+1 vs a bare relay process",
        unit: "ms",
        goal: "(report)",
        ...hubVsRelay,
      },
      {
        name: 'floor, not tabwire: evaluate("1+1") round trip through the bare relay / raw CDP (the relay in the tabwire column)',
        label: "floor: bare relay vs raw CDP, round trip",
        unit: "ms",
        goal: "(report)",
        ...relayVsRaw,
      },
      {
        name: `floor, not tabwire: evaluate throughput, ${IN_FLIGHT} in flight, through the bare relay / raw CDP (the relay in the tabwire column)`,
        label: `floor: bare relay vs raw CDP, ${IN_FLIGHT} in flight`,
        unit: "calls/s",
        goal: "(report)",
        ...relayThroughput,
      },
    ];
  } finally {
    child.kill();
  }
}
