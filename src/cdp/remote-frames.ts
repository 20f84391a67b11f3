import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import { HubError, isHubError } from "../errors.js";
import type { CdpConnection } from "./connection.js";
import type { CdpSession } from "./session.js";
import type { TabSession } from "./tab-session.js";

/** A session frame commands go through: the tab's own, or one attached to a cross-site iframe. */
export type FrameSession = Pick<CdpSession, "send">;

/** Where a cross-site iframe hangs: the frame that holds its iframe element, and the cross-site frame (if any) whose process runs that one. */
export interface RemotePlace {
  parentFrameId: string;
  /** The cross-site frame whose session reaches the parent frame; none when the tab's own session does. */
  parentRemote?: string;
}

// Attach and detach are bounded by their own deadlines: a late attach answer must still be detached.
const ATTACH_TIMEOUT_MS = 5_000;
const DETACH_TIMEOUT_MS = 1_000;

/**
 * The cross-site (out-of-process) iframes of one tab a snapshot reached: where each hangs, and a flattened CDP session
 * to each, attached on first use and kept while the tab's session lives, so that refs into the frame resolve and
 * act there. Chrome runs such a frame in a renderer of its own: the tab's session cannot see into it.
 */
export class RemoteFrames {
  #connection: CdpConnection;
  #sessions = new Map<string, Promise<CdpSession>>();
  #places = new Map<string, RemotePlace>();
  #closed = false;

  private constructor(tab: TabSession) {
    this.#connection = tab.connection;
    tab.cdp.once("closed", () => this.#detachAll());
  }

  /** The tab's remote frames, made on first use. */
  static of(tab: TabSession): RemoteFrames {
    let frames = registry.get(tab);
    if (!frames) {
      frames = new RemoteFrames(tab);
      registry.set(tab, frames);
    }
    return frames;
  }

  /** Chrome's iframe targets (every tab's: callers keep those whose parent frame is theirs). */
  async iframeTargets(budget: Budget): Promise<Protocol.Target.TargetInfo[]> {
    const { targetInfos } = await this.#connection.send("Target.getTargets", undefined, { budget });
    return targetInfos.filter((info) => info.type === "iframe");
  }

  /** Records where the cross-site frame `frameId` hangs. */
  place(frameId: string, place: RemotePlace): void {
    this.#places.set(frameId, place);
  }

  /** Forgets (and detaches from) every cross-site frame but those the latest snapshot reached: older refs name nothing. */
  keepOnly(frameIds: ReadonlySet<string>): void {
    for (const frameId of [...this.#places.keys()]) if (!frameIds.has(frameId)) this.#places.delete(frameId);
    for (const [frameId, attaching] of [...this.#sessions]) {
      if (frameIds.has(frameId)) continue;
      this.#sessions.delete(frameId);
      attaching.then(
        (session) => this.#detach(session.id),
        () => {},
      );
    }
  }

  /** Where a cross-site frame a snapshot reached hangs, or NODE_NOT_FOUND when no snapshot reached it. */
  placeOf(frameId: string): RemotePlace {
    const place = this.#places.get(frameId);
    if (place) return place;
    throw new HubError("NODE_NOT_FOUND", `the cross-site frame ${frameId} is not one the tab's snapshot reached; take a new snapshot`);
  }

  /** The session of a cross-site frame, attached once; NODE_NOT_FOUND once the frame is gone. */
  async session(frameId: string, budget: Budget): Promise<CdpSession> {
    const held = await this.#sessions.get(frameId)?.catch(() => null);
    if (held && !held.isClosed) return held;
    if (this.#closed) throw gone(frameId);
    const attaching = this.#attach(frameId);
    this.#sessions.set(frameId, attaching);
    attaching.catch(() => this.#sessions.delete(frameId));
    return budget.race(attaching).catch((error: unknown) =>
      // A timeout, a cancel or a lost browser stays what it is; Chrome's "no such target" means the frame is gone.
      Promise.reject(isHubError(error) && !isHubError(error, "TARGET_CLOSED") ? error : gone(frameId)),
    );
  }

  async #attach(frameId: string): Promise<CdpSession> {
    const { sessionId } = await this.#connection.send(
      "Target.attachToTarget",
      { targetId: frameId, flatten: true },
      { timeoutMs: ATTACH_TIMEOUT_MS },
    );
    if (this.#closed) {
      this.#detach(sessionId);
      throw gone(frameId);
    }
    return this.#connection.createSession(sessionId, frameId);
  }

  #detachAll(): void {
    this.#closed = true;
    for (const attaching of this.#sessions.values())
      attaching.then(
        (session) => this.#detach(session.id),
        () => {},
      );
    this.#sessions.clear();
    this.#places.clear();
  }

  #detach(sessionId: string): void {
    this.#connection.dropSession(sessionId, new HubError("TARGET_CLOSED", "the iframe's CDP session was detached"));
    this.#connection.send("Target.detachFromTarget", { sessionId }, { timeoutMs: DETACH_TIMEOUT_MS }).catch(() => {});
  }
}

const registry = new WeakMap<TabSession, RemoteFrames>();

function gone(frameId: string): HubError {
  return new HubError(
    "NODE_NOT_FOUND",
    `the cross-site frame ${frameId} is gone (removed, navigated, or its tab closed); take a new snapshot`,
  );
}
