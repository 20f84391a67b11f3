import type { Protocol } from "devtools-protocol";
import type { CdpConnection } from "../cdp/connection.js";
import type { CdpSession } from "../cdp/session.js";
import { HubError } from "../errors.js";

interface HeldSession {
  session: CdpSession;
  /** The session it was auto-attached under (an iframe's or a worker's), if not attached at the browser level. */
  parent?: string;
}

/**
 * The flattened sessions of one /cdp connection on the hub's connection to Chrome: its own, with those Chrome
 * auto-attaches under them; their events are relayed to the caller as they come, and a detached one is forgotten
 * with the sessions under it.
 */
export class CdpSessions {
  #connection: CdpConnection;
  #relay: (message: object) => void;
  #held = new Map<string, HeldSession>();

  constructor(connection: CdpConnection, relay: (message: object) => void) {
    this.#connection = connection;
    this.#relay = relay;
  }

  /** Whether the session is one of this connection's. */
  has(sessionId: string): boolean {
    return this.#held.has(sessionId);
  }

  /** The session a detach of it goes to: its parent's, or the browser's (undefined); null when it is not held. */
  parentOf(sessionId: string): string | undefined | null {
    const held = this.#held.get(sessionId);
    return held ? held.parent : null;
  }

  /** The browser-level session this connection holds on a target. */
  onTarget(targetId: unknown): string | undefined {
    for (const [sessionId, held] of this.#held) if (held.session.targetId === targetId && held.parent === undefined) return sessionId;
    return undefined;
  }

  /** The sessions attached at the browser level (what a closing connection detaches). */
  topLevel(): string[] {
    return [...this.#held].filter(([, held]) => held.parent === undefined).map(([sessionId]) => sessionId);
  }

  /** Registers a session on the hub's connection, relaying its events. */
  hold(sessionId: string, targetId: string, parent?: string): void {
    const session = this.#connection.createSession(sessionId, targetId);
    session.tap = (method, params) => this.#onEvent(sessionId, method, params);
    this.#held.set(sessionId, { session, parent });
  }

  /** Forgets a session and the sessions attached under it. */
  forget(sessionId: string): void {
    if (!this.#held.delete(sessionId)) return;
    this.#connection.dropSession(sessionId, new HubError("TARGET_CLOSED", "the /cdp session was detached"));
    for (const [child, held] of [...this.#held]) if (held.parent === sessionId) this.forget(child);
  }

  /** Forgets every session (the connection ends). */
  forgetAll(): void {
    for (const sessionId of [...this.#held.keys()]) this.forget(sessionId);
  }

  #onEvent(sessionId: string, method: string, params: unknown): void {
    if (method === "Target.attachedToTarget") {
      const { sessionId: child, targetInfo } = params as Protocol.Target.AttachedToTargetEvent;
      this.hold(child, targetInfo.targetId, sessionId);
    } else if (method === "Target.detachedFromTarget") {
      this.forget((params as Protocol.Target.DetachedFromTargetEvent).sessionId);
    }
    this.#relay({ method, params, sessionId });
  }
}
