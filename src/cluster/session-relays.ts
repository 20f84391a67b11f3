import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import type { ResumeAnswer } from "../rpc/method.js";
import type { SessionSink } from "../transport/resume-session.js";
import { newCallId, type FrameMessage, type ResumedMessage, type UntunnelMessage } from "./messages.js";
import type { ClusterRegistry } from "./registry.js";
import { keeperNamedIn, type SessionRecord, type SessionRecords } from "./session-records.js";

/** A socket of this instance whose session lives on another (its keeper). */
interface Relay {
  keeper: string;
  sink: SessionSink;
}

/** A resume sent to a keeper, waiting for its answer. */
interface Asked {
  keeper: string;
  resolve(answer: string): void;
}

// The longest a resume waits for the keeper's answer, whatever the call's budget.
const RESUME_WAIT_MS = 5_000;

/**
 * The caller's side of a resume in a cluster: a session this instance does not keep is looked up in Redis; when its
 * keeper is alive, the keeper takes the socket over and the socket becomes a tunnel (its frames go to the keeper as
 * they are, the keeper's come back already numbered), so the seq, subscriptions and calls of the session go on as
 * on one hub. When the keeper is gone, the caller learns the session expired and what it lost.
 */
export class SessionRelays {
  #registry: ClusterRegistry;
  #records: SessionRecords;
  #timeoutMs: number;
  #relays = new Map<string, Relay>();
  #asked = new Map<string, Asked>();

  constructor(options: { registry: ClusterRegistry; records: SessionRecords; timeoutMs: number }) {
    this.#registry = options.registry;
    this.#records = options.records;
    this.#timeoutMs = options.timeoutMs;
  }

  /** Gives `sink` the session another instance keeps; null when none keeps one for this grant (answered `unknown`). */
  async resume(wanted: { id: string; lastSeq: number; binding: string }, sink: SessionSink, budget: Budget): Promise<ResumeAnswer | null> {
    const me = this.#registry.instanceId;
    const record = await this.#records.read(wanted.id, this.#waitMs(budget)).catch(() => null);
    // Another grant's session is not found, exactly as one that never was.
    if (record && record.binding !== wanted.binding) return null;
    // A session whose drop its keeper has not seen yet (or not recorded yet) has no record: its id names the keeper,
    // which answers under the same rules (and closes the half-open socket it still has).
    const keeper = record?.instance ?? keeperNamedIn(wanted.id);
    if (keeper === null || keeper === me) return null;
    const alive = await this.#registry.listening([keeper], this.#waitMs(budget)).catch(() => null);
    if (alive && !alive.has(keeper)) {
      if (!record) return null;
      this.#records.gone(wanted.id);
      return expired(record, wanted.lastSeq);
    }
    const conn = newCallId();
    this.#relays.set(conn, { keeper, sink });
    try {
      const answer = JSON.parse(await this.#ask(keeper, { ...wanted, conn }, budget)) as ResumeAnswer;
      if (!answer.resumed) this.#relays.delete(conn);
      else sink.relay({ send: (text) => this.#up(conn, text), closed: (dropped) => this.#closed(conn, dropped) });
      return answer;
    } catch (error) {
      // The keeper may have given the session to this socket after all: it keeps it again for another resume.
      this.#closed(conn, true);
      throw error;
    }
  }

  /** The keeper's answer to a resume. */
  onResumed(message: ResumedMessage): void {
    const asked = this.#asked.get(message.id);
    if (asked?.keeper !== message.from) return;
    this.#asked.delete(message.id);
    asked.resolve(message.answer);
  }

  /** A frame of the session for its socket here (a notification, an answer, a replay). */
  onFrame(message: FrameMessage): void {
    const relay = this.#relays.get(message.conn);
    if (relay?.keeper !== message.from) return;
    for (const text of message.texts) relay.sink.write(text);
  }

  /** The keeper ended the tunnel (the session was resumed elsewhere, or ended): its socket closes. */
  onUntunnel(message: UntunnelMessage): void {
    const relay = this.#relays.get(message.conn);
    if (relay?.keeper !== message.from) return;
    this.#relays.delete(message.conn);
    relay.sink.close(message.code ?? 1012, message.reason ?? "the session ended on the hub instance that kept it");
  }

  /** The instances that keep sessions of this one's sockets. */
  keepers(): string[] {
    return [...new Set([...this.#relays.values()].map((relay) => relay.keeper))];
  }

  /** A keeper died: its sockets here close with 1012, so their clients come back and learn what they lost. */
  keeperGone(instance: string): void {
    for (const [conn, relay] of [...this.#relays]) {
      if (relay.keeper !== instance) continue;
      this.#relays.delete(conn);
      relay.sink.close(1012, "the hub instance that kept this session is gone; reconnect and resume");
    }
  }

  /**
   * This instance stops: each keeper keeps its session for a resume through another instance, and its socket closes
   * with 1012 (not the 1001 of the other sockets), so its client holds its calls and resumes.
   */
  closeAll(): void {
    for (const [conn, relay] of [...this.#relays]) {
      this.#closed(conn, true);
      relay.sink.close(1012, "this hub instance is stopping; reconnect and resume");
    }
  }

  async #ask(keeper: string, wanted: { id: string; lastSeq: number; binding: string; conn: string }, budget: Budget): Promise<string> {
    const id = newCallId();
    const me = this.#registry.instanceId;
    const waitMs = Math.min(RESUME_WAIT_MS, Math.max(1, budget.remainingMs()));
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<string>((resolve, reject) => {
      this.#asked.set(id, { keeper, resolve });
      const why = `the hub instance ${keeper} that keeps session ${wanted.id} did not answer within ${waitMs} ms; call session.resume again`;
      timer = setTimeout(() => reject(new HubError("TIMEOUT", why)), waitMs);
    });
    try {
      const { id: session, lastSeq, binding, conn } = wanted;
      const listening = await this.#registry.send(keeper, { type: "resume", id, from: me, conn, binding, session, lastSeq }, waitMs);
      if (!listening)
        throw new HubError(
          "TIMEOUT",
          `the hub instance ${keeper} that keeps session ${session} is not listening; call session.resume again`,
        );
      return await answered;
    } finally {
      clearTimeout(timer);
      this.#asked.delete(id);
    }
  }

  // A frame of the socket for the session on its keeper. One too big to send between instances is answered here.
  #up(conn: string, text: string): void {
    const relay = this.#relays.get(conn);
    if (!relay) return;
    const me = this.#registry.instanceId;
    if (this.#registry.trySend(relay.keeper, { type: "frame", direction: "up", from: me, conn, texts: [text] }, this.#timeoutMs)) return;
    const error = new HubError(
      "OVERLOADED",
      "the request is over CLUSTER_MAX_MESSAGE_BYTES, the most one hub instance sends another, and this connection's session lives on another instance; send less",
    );
    relay.sink.write(JSON.stringify({ jsonrpc: "2.0", id: idOf(text), error: error.toWire() }));
  }

  #closed(conn: string, dropped: boolean): void {
    const relay = this.#relays.get(conn);
    if (!relay) return;
    this.#relays.delete(conn);
    const message: UntunnelMessage = { type: "untunnel", from: this.#registry.instanceId, conn, dropped };
    this.#registry.send(relay.keeper, message, this.#timeoutMs).catch((error: unknown) => {
      log.debug("cluster: cannot tell a session's keeper its socket closed", { keeper: relay.keeper, error: (error as Error).message });
    });
  }

  #waitMs(budget: Budget): number {
    return Math.min(this.#timeoutMs, Math.max(1, budget.remainingMs()));
  }
}

/** The answer for a session whose keeper is gone: it ended with its instance, and what came after `lastSeq` is lost. */
function expired(record: SessionRecord, lastSeq: number): ResumeAnswer {
  // What the keeper sent after its record was written is not known here: lost from lastSeq + 1 on, with no end.
  return { resumed: false, session: "", reason: "expired", lost: { fromSeq: lastSeq + 1, calls: record.calls } };
}

/** The id of a request frame, where it can be read (null otherwise, as JSON-RPC answers an unreadable one). */
function idOf(text: string): string | number | null {
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}
