import type { Capability } from "../capabilities.js";
import { setMaxListeners } from "node:events";
import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import type { JsonRpcId } from "../rpc/envelope.js";
import { InflightTable } from "../rpc/inflight.js";
import type { ConnectionState, ResumeAnswer } from "../rpc/method.js";
import { ReplayBuffer, type ReplayLimits } from "./resume-buffer.js";

/** The socket a session writes to, as its peer lends it. */
export interface SessionSink {
  write(text: string): void;
  isOverHighWater(): boolean;
  bufferedBytes(): number;
  /** Makes `session` the peer's from now on: its next frames run in it (a resume). */
  adopt(session: PeerSession): void;
  /** Makes the peer a tunnel (a resume of a session another hub instance keeps): its frames go to `tunnel`. */
  relay(tunnel: SessionTunnel): void;
  close(code: number, reason: string): void;
}

/** Where a socket's frames go when its session lives on another hub instance. */
export interface SessionTunnel {
  /** One frame the socket received, as text. */
  send(text: string): void;
  /** The socket closed: `dropped` when it dropped (any close but 1000 and 1001), so the session is kept again. */
  closed(dropped: boolean): void;
}

/** What a session is made with: who made it, and for a resumable one its buffer limits. */
export interface PeerSessionOptions {
  id: string;
  scope: ReadonlySet<string> | null;
  /** What its token may do (ConnectionState.capabilities); absent: everything. */
  capabilities?: ReadonlySet<Capability> | null;
  peer: string;
  /** The grant of the token that made it ("open" on a hub without tokens): only the same may resume it. */
  binding: string;
  /** Who it acts for, for audit.log (ConnectionState.who). */
  who?: string;
  /** The caller's W3C trace context from the upgrade (ConnectionState.traceparent). */
  traceparent?: string;
  /** Absent for a session that cannot be resumed: it keeps nothing. */
  replay?: ReplayLimits;
  /** Set by the registry: takes over a dropped session for this one. */
  resume?: (session: PeerSession, wanted: { id: string; lastSeq: number }, budget: Budget) => ResumeAnswer | Promise<ResumeAnswer>;
}

/**
 * What a connection builds up (subscriptions, calls in flight, the seq of its notifications), apart from its socket:
 * a resumable one outlives a dropped socket, keeping what it sends and owes until a new connection takes it over.
 */
export class PeerSession {
  readonly id: string;
  readonly binding: string;
  readonly state: ConnectionState;
  #seq = 0;
  #replay: ReplayBuffer | null;
  #sink: SessionSink | null = null;
  #closed = new AbortController();

  constructor(options: PeerSessionOptions) {
    this.id = options.id;
    this.binding = options.binding;
    this.#replay = options.replay ? new ReplayBuffer(options.replay) : null;
    // Each subscription and live view of the connection listens for its end; MAX_SUBSCRIPTIONS bounds them, not 10.
    setMaxListeners(0, this.#closed.signal);
    const { resume } = options;
    this.state = {
      id: options.id,
      scope: options.scope,
      capabilities: options.capabilities ?? null,
      peer: options.peer,
      ...(options.who === undefined ? {} : { who: options.who }),
      ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
      inflight: new InflightTable(),
      closed: this.#closed.signal,
      notify: (method, params) => this.notify(method, params),
      // Away, a live view has nobody to draw for: it skips frames as for a reader far behind.
      bufferedBytes: () => this.#sink?.bufferedBytes() ?? Number.MAX_SAFE_INTEGER,
      ...(resume ? { resume: (id: string, lastSeq: number, budget: Budget) => resume(this, { id, lastSeq }, budget) } : {}),
    };
  }

  /** Whether it is kept after its socket drops. */
  get isResumable(): boolean {
    return this.#replay !== null;
  }

  /** Whether it ended: its subscriptions are gone, its calls cancelled. */
  get isReleased(): boolean {
    return this.#closed.signal.aborted;
  }

  /** The seq of the last notification it sent or kept. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** The socket it writes to now, if any. */
  get sink(): SessionSink | null {
    return this.#sink;
  }

  /** Sends a notification with the next seq (kept for a resume too); false when dropped, as for a reader far behind. */
  notify(method: string, params: object): boolean {
    if (this.isReleased || (this.#sink?.isOverHighWater() ?? this.#replay === null)) return false;
    const text = encodeNotification(method, params, this.#seq + 1);
    if (text === null) {
      log.warn("dropped a notification that cannot be written", { connection: this.id, method });
      return false;
    }
    this.#seq++;
    this.#replay?.push(this.#seq, text);
    this.#sink?.write(text);
    return true;
  }

  /** Writes an answer, or keeps it for the caller's return while the socket is away. */
  answer(text: string): void {
    if (this.#sink) this.#sink.write(text);
    else if (!this.isReleased) this.#replay?.owe(text);
  }

  /** Writes to `sink` from now on, after the notifications after `lastSeq` and the answers owed; returns how many of each. */
  attach(sink: SessionSink, lastSeq = this.#seq): { replayed: number; answered: number } {
    this.#sink = sink;
    const missed = this.#replay?.after(lastSeq) ?? [];
    for (const text of missed) sink.write(text);
    const owed = this.#replay?.takeOwed() ?? [];
    for (const text of owed) sink.write(text);
    return { replayed: missed.length, answered: owed.length };
  }

  /** Stops writing to the socket it had: what it sends is kept until `attach` or `release`. */
  detach(): void {
    this.#sink = null;
  }

  /** Whether the notifications after `lastSeq` are all still kept. */
  keepsAfter(lastSeq: number): boolean {
    return this.#replay?.keepsAfter(lastSeq) ?? true;
  }

  /** The ids of the calls whose answers a caller that does not resume it never gets. */
  lostCalls(): (string | number)[] {
    const ids: JsonRpcId[] = [...this.state.inflight.ids(), ...(this.#replay?.lostCalls() ?? [])];
    return ids.filter((id) => id !== null);
  }

  /** The first seq still kept (lastSeq + 1 when none is). */
  get firstKeptSeq(): number {
    return this.#replay?.firstSeq ?? this.#seq + 1;
  }

  /** Ends it once: its calls cancelled (unless `keepCalls`, for a session given up for another), its subscriptions ended. */
  release(why: string, options: { keepCalls?: boolean } = {}): void {
    if (this.isReleased) return;
    if (!options.keepCalls) this.state.inflight.cancelAll(new HubError("CANCELLED", why));
    this.#closed.abort();
    this.#replay = null;
  }
}

/**
 * The notification's frame with `seq` as the last member of its params: written as text rather than by copying the
 * params, since every notification of every connection goes through here.
 */
function encodeNotification(method: string, params: object, seq: number): string | null {
  let body: string | undefined;
  try {
    body = JSON.stringify(params) as string | undefined;
  } catch {
    return null;
  }
  if (body === undefined || !body.endsWith("}")) return null;
  const withSeq = body === "{}" ? `{"seq":${seq}}` : `${body.slice(0, -1)},"seq":${seq}}`;
  return `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${withSeq}}`;
}
