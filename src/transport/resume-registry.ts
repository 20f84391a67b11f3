import { log } from "../log.js";
import type { ResumeAnswer } from "../rpc/method.js";
import type { ReplayLimits } from "./resume-buffer.js";
import { PeerSession } from "./resume-session.js";

/** The resume settings: RESUME_WINDOW_MS (0: off), the buffer's bounds, and how many dropped sessions are kept. */
export interface ResumeSettings extends ReplayLimits {
  windowMs: number;
  maxSessions: number;
}

/** What is remembered of a session that ended while away, so that its owner learns what it lost. */
interface Ended {
  binding: string;
  lastSeq: number;
  calls: (string | number)[];
}

// The ids a failed resume names at most: MAX_INFLIGHT's default, and room for answers owed.
const LOST_CALLS_MAX = 1_000;

/** The resumable sessions of the hub: the ones connected, the ones away (for RESUME_WINDOW_MS), and the ones that ended. */
export class ResumeRegistry {
  #settings: ResumeSettings;
  #sessions = new Map<string, PeerSession>();
  // Away sessions in the order they dropped, with their expiry timers.
  #away = new Map<string, NodeJS.Timeout>();
  #ended = new Map<string, Ended>();

  constructor(settings: ResumeSettings) {
    this.#settings = settings;
  }

  /** Whether sessions may be resumed at all (RESUME_WINDOW_MS above 0). */
  get isOn(): boolean {
    return this.#settings.windowMs > 0;
  }

  /** The window a dropped session is kept for (ms). */
  get windowMs(): number {
    return this.#settings.windowMs;
  }

  /** A new session of a connection that asked for resume; `binding` names the grant that made it. */
  open(options: { id: string; scope: ReadonlySet<string> | null; peer: string; binding: string; who?: string }): PeerSession {
    // The settings are the buffer's limits too (ResumeSettings extends ReplayLimits): no copy per connection.
    const session = new PeerSession({ ...options, replay: this.#settings, resume: (caller, wanted) => this.#resume(caller, wanted) });
    this.#sessions.set(session.id, session);
    return session;
  }

  /** Keeps a session whose socket dropped for the window, then ends it; the oldest away go first past RESUME_MAX_SESSIONS. */
  drop(session: PeerSession): void {
    if (session.isReleased || !this.#sessions.has(session.id)) return;
    session.detach();
    clearTimeout(this.#away.get(session.id));
    const timer = setTimeout(
      () => this.#end(session, "the connection dropped and was not resumed in time (RESUME_WINDOW_MS)"),
      this.#settings.windowMs,
    );
    timer.unref();
    this.#away.set(session.id, timer);
    for (const [id] of this.#away) {
      if (this.#away.size <= this.#settings.maxSessions) break;
      const oldest = this.#sessions.get(id);
      if (oldest) this.#end(oldest, "too many dropped connections are kept (RESUME_MAX_SESSIONS)");
    }
  }

  /** Ends a session now (its connection closed cleanly, or was closed by the hub). */
  close(session: PeerSession, why: string): void {
    this.#forget(session);
    session.release(why);
  }

  /** Ends every session, for the hub's shutdown. */
  closeAll(): void {
    for (const session of [...this.#sessions.values()]) this.close(session, "the hub is shutting down");
    this.#ended.clear();
  }

  #resume(caller: PeerSession, wanted: { id: string; lastSeq: number }): ResumeAnswer {
    const session = this.#sessions.get(wanted.id);
    // Another caller's session is answered exactly as one that does not exist: an id is not a credential.
    if (!session || session === caller || session.binding !== caller.binding || wanted.lastSeq > session.lastSeq) {
      const ended = this.#ended.get(wanted.id);
      if (!ended || ended.binding !== caller.binding) return { resumed: false, session: caller.id, reason: "unknown", lost: { calls: [] } };
      this.#ended.delete(wanted.id);
      return { resumed: false, session: caller.id, reason: "expired", lost: lostOf(wanted.lastSeq, ended) };
    }
    if (!session.keepsAfter(wanted.lastSeq)) {
      const lost = { fromSeq: wanted.lastSeq + 1, toSeq: session.firstKeptSeq - 1, calls: session.lostCalls().slice(0, LOST_CALLS_MAX) };
      this.close(session, "the connection dropped and its notifications overflowed the resume buffer");
      return { resumed: false, session: caller.id, reason: "overflowed", lost };
    }
    return this.#takeOver(caller, session, wanted.lastSeq);
  }

  /** Moves the caller's socket onto `session`; a socket the session still had (half-open) is closed. */
  #takeOver(caller: PeerSession, session: PeerSession, lastSeq: number): ResumeAnswer {
    const sink = caller.sink;
    if (!sink) return { resumed: false, session: caller.id, reason: "unsupported", lost: { calls: [] } };
    clearTimeout(this.#away.get(session.id));
    this.#away.delete(session.id);
    const previous = session.sink;
    session.detach();
    previous?.close(4000, "the session was resumed on another connection");
    sink.adopt(session);
    // The caller's own session ends, but a call it runs (this one) still answers, on the same socket.
    this.#forget(caller);
    caller.release("the connection resumed another session", { keepCalls: true });
    const { replayed, answered } = session.attach(sink, lastSeq);
    log.info("session resumed", { session: session.id, replayed, answered });
    return { resumed: true, session: session.id, replayed, answered };
  }

  #end(session: PeerSession, why: string): void {
    const calls = session.lostCalls().slice(0, LOST_CALLS_MAX);
    this.#forget(session);
    session.release(why);
    this.#ended.set(session.id, { binding: session.binding, lastSeq: session.lastSeq, calls });
    // What is remembered of ended sessions is bounded as the sessions are.
    for (const [id] of this.#ended) {
      if (this.#ended.size <= this.#settings.maxSessions) break;
      this.#ended.delete(id);
    }
  }

  #forget(session: PeerSession): void {
    clearTimeout(this.#away.get(session.id));
    this.#away.delete(session.id);
    this.#sessions.delete(session.id);
  }
}

function lostOf(lastSeq: number, ended: Ended): NonNullable<ResumeAnswer["lost"]> {
  if (ended.lastSeq <= lastSeq) return { calls: ended.calls };
  return { fromSeq: lastSeq + 1, toSeq: ended.lastSeq, calls: ended.calls };
}
