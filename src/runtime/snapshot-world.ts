import type { Budget } from "../budget.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import type { FrameSession } from "../cdp/remote-frames.js";
import type { TabSession } from "../cdp/tab-session.js";

const WORLD_NAME = "tabwire-snapshot";

/** The hub's world in one frame's document: its execution context, and the hub's scripts made there (world-scripts.ts). */
interface World {
  contextId: number;
  scripts: Set<string>;
}

const worlds = new WeakMap<FrameSession, Map<string, World>>();

/**
 * Runs `use` with the execution context of the hub's snapshot world in one frame: made once per document and reused,
 * so that the ids the page script hands out stay the same from one snapshot to the next; made again when the frame's
 * document was replaced. Page scripts cannot see or change what runs there.
 *
 * A tab's worlds are forgotten as soon as its main frame navigates: Chrome numbers execution contexts per renderer
 * process, so after the tab moved to another process an old world's number can be the new page's own context, and
 * the hub's script would run where the page sees it (and answers for it).
 */
export async function inSnapshotWorld<T>(
  session: FrameSession | TabSession,
  frame: { frameId: string; budget: Budget },
  use: (contextId: number) => Promise<T>,
): Promise<T> {
  const frames = worldsOf(session);
  const known = frames.get(frame.frameId);
  if (known !== undefined) {
    try {
      return await use(known.contextId);
    } catch (error) {
      if (!isContextGone(error)) throw error;
    }
  }
  const { executionContextId } = await session.send(
    "Page.createIsolatedWorld",
    { frameId: frame.frameId, worldName: WORLD_NAME },
    { budget: frame.budget },
  );
  frames.set(frame.frameId, { contextId: executionContextId, scripts: new Set() });
  return use(executionContextId);
}

/**
 * The hub's scripts made in the snapshot world of a frame whose context is `contextId` (see world-scripts.ts): empty,
 * and kept no longer than the world, for a context that is not the world's (made again).
 */
export function scriptsMadeIn(session: FrameSession, world: { frameId: string; contextId: number }): Set<string> {
  const known = worldsOf(session).get(world.frameId);
  return known?.contextId === world.contextId ? known.scripts : new Set();
}

function worldsOf(session: FrameSession | TabSession): Map<string, World> {
  let frames = worlds.get(session);
  if (!frames) {
    const made = new Map<string, World>();
    // Lives as long as the session: a tab's session drops its listeners when it closes.
    if ("onNavigated" in session) session.onNavigated(() => made.clear());
    worlds.set(session, (frames = made));
  }
  return frames;
}
