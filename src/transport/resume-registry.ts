import type { Budget } from "../budget.js";
import { newId } from "../ids.js";
import { log } from "../log.js";
import type { ResumeAnswer } from "../rpc/method.js";
import type { ReplayLimits } from "./resume-buffer.js";
import { PeerSession, type PeerSessionOptions, type SessionSink } from "./resume-session.js";

/** The resume settings: RESUME_WINDOW_MS (0: off), the buffer's bounds, and how many dropped sessions are kept. */
export interface ResumeSettings extends ReplayLimits {
  windowMs: number;
  maxSessions: number;
}

/** A session dropped here, as the cluster records it for a resume through another instance. */
export interface AwaySession {
  id: string;
  binding: string;
  lastSeq: number;
  calls: (string | number)[];
}

/** A cluster (Redis): where word of dropped sessions is kept, and the sessions other instances keep are found. */
export interface ResumeElsewhere {
  /** The id of a new session here: it names this instance, so any other finds the keeper even before a drop is seen. */
  newSessionId(): string;
  /** A session dropped here and is kept for the window. */
  away(session: AwaySession): void;
  /** A session here ended for good (its connection closed): no resume will find it. */
  gone(id: string): void;
  /** Gives `sink` a session another instance keeps; null when no instance keeps one for this caller. */
  resume(wanted: { id: string; lastSeq: number; binding: string }, sink: SessionSink, budget: Budget): Promise<ResumeAnswer | null>;
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
  #elsewhere: ResumeElsewhere | null = null;

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

  /** In a cluster: dropped sessions are recorded in Redis, and one this hub does not keep is looked for on the others. */
  useCluster(elsewhere: ResumeElsewhere): void {
    this.#elsewhere = elsewhere;
  }

  /** The id for a new session (in a cluster, one that names this instance). */
  newSessionId(): string {
    return this.#elsewhere?.newSessionId() ?? newId();
  }

  /** A new session of a connection that asked for resume; `binding` names the grant that made it. */
  open(options: Pick<PeerSessionOptions, "id" | "scope" | "capabilities" | "peer" | "binding" | "who" | "traceparent">): PeerSession {
    // The settings are the buffer's limits too (ResumeSettings extends ReplayLimits): no copy per connection.
    const session = new PeerSession({
      ...options,
      replay: this.#settings,
      resume: (caller, wanted, budget) => this.#resume(caller, wanted, budget),
    });
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
    if (!session.isReleased) this.#elsewhere?.away({ ...this.#lostOf(session), lastSeq: session.lastSeq });
  }

  /** Ends a session now (its connection closed cleanly, or was closed by the hub). */
  close(session: PeerSession, why: string): void {
    this.#forget(session);
    session.release(why);
    this.#elsewhere?.gone(session.id);
  }

  /** Ends every session, for the hub's shutdown. */
  closeAll(): void {
    for (const session of [...this.#sessions.values()]) this.close(session, "the hub is shutting down");
    this.#ended.clear();
  }

  /**
   * Gives `sink` the session `wanted` if it is kept here for `binding` and still holds what came after `lastSeq`; a
   * failed answer's `session` is left empty for the caller to fill in with its own. For callers here and, in a
   * cluster, for a caller's socket on another instance (its frames then travel through Redis).
   */
  takeOver(binding: string, wanted: { id: string; lastSeq: number }, sink: SessionSink): ResumeAnswer {
    const session = this.#sessions.get(wanted.id);
    // Another caller's session is answered exactly as one that does not exist: an id is not a credential.
    if (!session || session.sink === sink || session.binding !== binding || wanted.lastSeq > session.lastSeq) {
      const ended = this.#ended.get(wanted.id);
      if (!ended || ended.binding !== binding) return { resumed: false, session: "", reason: "unknown", lost: { calls: [] } };
      this.#ended.delete(wanted.id);
      return { resumed: false, session: "", reason: "expired", lost: lostOf(wanted.lastSeq, ended) };
    }
    if (!session.keepsAfter(wanted.lastSeq)) {
      const lost = { fromSeq: wanted.lastSeq + 1, toSeq: session.firstKeptSeq - 1, calls: session.lostCalls().slice(0, LOST_CALLS_MAX) };
      this.close(session, "the connection dropped and its notifications overflowed the resume buffer");
      return { resumed: false, session: "", reason: "overflowed", lost };
    }
    clearTimeout(this.#away.get(session.id));
    this.#away.delete(session.id);
    const previous = session.sink;
    session.detach();
    previous?.close(4000, "the session was resumed on another connection");
    sink.adopt(session);
    const { replayed, answered } = session.attach(sink, wanted.lastSeq);
    log.info("session resumed", { session: session.id, replayed, answered });
    return { resumed: true, session: session.id, replayed, answered };
  }

  // session.resume: a session kept here, else (in a cluster) one another instance keeps.
  #resume(caller: PeerSession, wanted: { id: string; lastSeq: number }, budget: Budget): ResumeAnswer | Promise<ResumeAnswer> {
    const sink = caller.sink;
    if (!sink) return { resumed: false, session: caller.id, reason: "unsupported", lost: { calls: [] } };
    const here = this.takeOver(caller.binding, wanted, sink);
    if (here.reason !== "unknown" || !this.#elsewhere) return this.#answer(caller, here);
    return this.#elsewhere
      .resume({ ...wanted, binding: caller.binding }, sink, budget)
      .then((there) => this.#answer(caller, there ?? here));
  }

  // A caller that took another session over ends its own; a call it runs (session.resume) still answers, on its socket.
  #answer(caller: PeerSession, answer: ResumeAnswer): ResumeAnswer {
    if (!answer.resumed) return { ...answer, session: caller.id };
    this.#forget(caller);
    caller.release("the connection resumed another session", { keepCalls: true });
    return answer;
  }

  #end(session: PeerSession, why: string): void {
    const { calls } = this.#lostOf(session);
    this.#forget(session);
    session.release(why);
    this.#ended.set(session.id, { binding: session.binding, lastSeq: session.lastSeq, calls });
    // What is remembered of ended sessions is bounded as the sessions are.
    for (const [id] of this.#ended) {
      if (this.#ended.size <= this.#settings.maxSessions) break;
      this.#ended.delete(id);
    }
  }

  #lostOf(session: PeerSession): { id: string; binding: string; calls: (string | number)[] } {
    return { id: session.id, binding: session.binding, calls: session.lostCalls().slice(0, LOST_CALLS_MAX) };
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
