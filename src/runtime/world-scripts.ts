import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import type { FrameSession } from "../cdp/remote-frames.js";
import { DOM_AX_READER, DOM_AX_STATE, READ_DOM_AX } from "./dom-ax-script.js";
import { ARM_CHANGES, TAKE_CHANGES } from "./dom-change-script.js";
import { runHubScript } from "./hub-script.js";
import { scriptsMadeIn } from "./snapshot-world.js";

/** The hub's scripts kept in its snapshot world of a document (`state.scripts`): the reader, and those a call runs. */
const SOURCES = { reader: DOM_AX_READER, read: READ_DOM_AX, arm: ARM_CHANGES, take: TAKE_CHANGES } as const;

/** A script a call runs in the hub's world: a snapshot's read, or an action's watch starting (arm) or ending (take). */
export type WorldScript = Exclude<keyof typeof SOURCES, "reader">;

/**
 * Runs one of the hub's scripts in its world of a frame's document (`contextId`, see inSnapshotWorld), with numbers and
 * flags for arguments: its value, or the exception it threw. The scripts are made in the world with the first call
 * that needs them, their source sent once, some 12 KB for a read and 30 KB for an action's watch; later calls on the
 * same document name them (about 2 ms of a click's time on the bench's 5,000-element page). A world without them
 * (a document the hub did not see made, the hub started again on a Chrome it adopted) gets them with that call.
 */
export async function runWorldScript(
  session: FrameSession,
  world: { frameId: string; contextId: number; budget: Budget; what: string },
  call: { script: WorldScript; args: readonly (number | boolean)[] },
): Promise<Protocol.Runtime.EvaluateResponse> {
  const needs = ["reader", call.script] as const;
  const args = call.args.join(", ");
  const run = (expression: string): Promise<Protocol.Runtime.EvaluateResponse> =>
    runHubScript(world.what, () =>
      session.send(
        "Runtime.evaluate",
        { expression, contextId: world.contextId, returnByValue: true, awaitPromise: true },
        { budget: world.budget },
      ),
    );
  const scripts = scriptsMadeIn(session, world);
  if (needs.every((name) => scripts.has(name))) {
    const answer = await run(`globalThis.__tabwire?.scripts?.${call.script}?.(${args})`);
    // Each script answers a value (an object, or the read's JSON text): undefined is a world without them.
    if (answer.exceptionDetails || answer.result.value !== undefined) return answer;
    scripts.clear();
  }
  const sources = needs.filter((name) => !scripts.has(name)).map((name) => `scripts.${name} = ${SOURCES[name]};`);
  const answer = await run(`(() => {
  const scripts = (${DOM_AX_STATE}.scripts ??= {});
  ${sources.join("\n  ")}
  return scripts.${call.script}(${args});
})()`);
  if (!answer.exceptionDetails) for (const name of needs) scripts.add(name);
  return answer;
}
