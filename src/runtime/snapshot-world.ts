import type { Budget } from "../budget.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import type { FrameSession } from "../cdp/remote-frames.js";

const WORLD_NAME = "tabwire-snapshot";

const worlds = new WeakMap<FrameSession, Map<string, number>>();

/**
 * Runs `use` with the execution context of the hub's snapshot world in one frame: made once per document and reused,
 * so that the ids the page script hands out stay the same from one snapshot to the next; made again when the frame's
 * document was replaced. Page scripts cannot see or change what runs there.
 */
export async function inSnapshotWorld<T>(
  session: FrameSession,
  frame: { frameId: string; budget: Budget },
  use: (contextId: number) => Promise<T>,
): Promise<T> {
  let contexts = worlds.get(session);
  if (!contexts) worlds.set(session, (contexts = new Map()));
  const known = contexts.get(frame.frameId);
  if (known !== undefined) {
    try {
      return await use(known);
    } catch (error) {
      if (!isContextGone(error)) throw error;
    }
  }
  const { executionContextId } = await session.send(
    "Page.createIsolatedWorld",
    { frameId: frame.frameId, worldName: WORLD_NAME },
    { budget: frame.budget },
  );
  contexts.set(frame.frameId, executionContextId);
  return use(executionContextId);
}
