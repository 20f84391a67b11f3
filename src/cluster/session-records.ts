import { newId } from "../ids.js";
import { log } from "../log.js";
import type { AwaySession } from "../transport/resume-registry.js";
import { keys } from "./messages.js";
import type { RedisLink } from "./redis-link.js";

/** What Redis keeps of a dropped resumable session: where it lives, which grant made it, what its owner would lose. */
export interface SessionRecord {
  instance: string;
  binding: string;
  lastSeq: number;
  calls: (string | number)[];
}

// The call ids a record names at most: a record is one small Redis string.
const RECORD_CALLS_MAX = 100;
// Between a session id's random part and the instance that made it.
const KEEPER_MARK = "@";

/** A new session id that names the instance keeping it (`<uuid>@<instance>`). */
export function sessionIdOn(instance: string): string {
  return `${newId()}${KEEPER_MARK}${instance}`;
}

/** The instance a session id names, or null for an id that names none (one of a single hub, or made up). */
export function keeperNamedIn(id: string): string | null {
  const at = id.lastIndexOf(KEEPER_MARK);
  return at > 0 && at < id.length - 1 ? id.slice(at + 1) : null;
}

/**
 * Word of the dropped sessions in Redis (`tabwire:session:<id>`), so that a caller who comes back through another
 * instance finds the one that keeps its session, or learns that it ended with its instance. A record lives twice
 * RESUME_WINDOW_MS: the window, then as long again to say `expired` rather than `unknown`.
 */
export class SessionRecords {
  #link: RedisLink;
  #me: string;
  #keepMs: number;
  #timeoutMs: number;

  constructor(options: { link: RedisLink; instanceId: string; windowMs: number; timeoutMs: number }) {
    this.#link = options.link;
    this.#me = options.instanceId;
    this.#keepMs = 2 * options.windowMs;
    this.#timeoutMs = options.timeoutMs;
  }

  /** Records a session that dropped here (in the background: a resume through this instance needs no record). */
  away(session: AwaySession): void {
    const record: SessionRecord = {
      instance: this.#me,
      binding: session.binding,
      lastSeq: session.lastSeq,
      calls: session.calls.slice(0, RECORD_CALLS_MAX),
    };
    const command = ["SET", keys.session(session.id), JSON.stringify(record), "PX", String(this.#keepMs)];
    this.#link.command(command, this.#timeoutMs).catch((error: unknown) => {
      log.debug("cluster: cannot record a dropped session", { session: session.id, error: (error as Error).message });
    });
  }

  /** Forgets a session that ended for good (in the background). */
  gone(id: string): void {
    this.#link.command(["DEL", keys.session(id)], this.#timeoutMs).catch(() => {});
  }

  /** The record of a session, or null when Redis has none (or one this hub cannot read). */
  async read(id: string, timeoutMs: number): Promise<SessionRecord | null> {
    const text = await this.#link.command(["GET", keys.session(id)], timeoutMs);
    return typeof text === "string" ? parseRecord(text) : null;
  }
}

function parseRecord(text: string): SessionRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const record = value as Partial<SessionRecord> | null;
  if (typeof record?.instance !== "string" || typeof record.binding !== "string" || !Number.isSafeInteger(record.lastSeq)) return null;
  const calls = Array.isArray(record.calls) ? record.calls.filter((id) => typeof id === "string" || typeof id === "number") : [];
  return { instance: record.instance, binding: record.binding, lastSeq: record.lastSeq as number, calls };
}
