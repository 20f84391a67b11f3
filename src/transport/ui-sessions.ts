import { randomBytes } from "node:crypto";
import type { Grant } from "../transport/auth.js";

/** The name of the dashboard's session cookie. */
export const SESSION_COOKIE = "tabwire_session";

// A session lasts this long from sign-in, used or not: the dashboard asks for the token again after it.
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
// Sessions one token keeps at once: its sign-in past this ends that token's own oldest session, never another's.
const MAX_SESSIONS_PER_TOKEN = 100;
// Sessions kept in all: past this a sign-in is refused (503) rather than ending a session of another token.
const MAX_SESSIONS = 10_000;
// Expired sessions are swept at most this often, or once a second while the store is full (a sweep reads them all).
const SWEEP_EVERY_MS = 60_000;
const SWEEP_FULL_EVERY_MS = 1_000;

interface Session {
  grant: Grant;
  owner: string;
  expiresAt: number;
}

/** How many sessions the store keeps: per token, and in all. */
export interface UiSessionCaps {
  perToken: number;
  total: number;
}

/**
 * The dashboard's sign-ins: a random id (the HttpOnly cookie's value) for the grant of the token it was made with,
 * so the page never holds the token. A session reaches exactly what its token reaches. Each token keeps at most
 * `perToken` sessions (a new one ends its own oldest), so no token holder can sign others out.
 */
export class UiSessions {
  #sessions = new Map<string, Session>();
  // The ids of each token's sessions, oldest first; a token is known by its grant's key, never by the token itself.
  #byOwner = new Map<string, Set<string>>();
  #caps: UiSessionCaps;
  #sweptAt = 0;

  constructor(caps: UiSessionCaps = { perToken: MAX_SESSIONS_PER_TOKEN, total: MAX_SESSIONS }) {
    this.#caps = caps;
  }

  /** Makes a session for a grant; returns its id, or null when the store holds its most live sessions. */
  open(grant: Grant): string | null {
    const owner = grant.key ?? "open";
    const mine = this.#byOwner.get(owner) ?? new Set<string>();
    this.#sweep(this.#sessions.size >= this.#caps.total);
    if (mine.size >= this.#caps.perToken) {
      const oldest = mine.values().next().value;
      if (oldest !== undefined) this.close(oldest);
    }
    if (this.#sessions.size >= this.#caps.total) return null;
    const id = randomBytes(32).toString("base64url");
    this.#sessions.set(id, { grant, owner, expiresAt: Date.now() + SESSION_TTL_MS });
    this.#byOwner.set(owner, mine.add(id));
    return id;
  }

  /** The grant of a live session, or null. */
  grantOf(id: string): Grant | null {
    const session = this.#sessions.get(id);
    if (!session) return null;
    if (session.expiresAt <= Date.now()) {
      this.close(id);
      return null;
    }
    return session.grant;
  }

  /** Ends a session (sign out). */
  close(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    const mine = this.#byOwner.get(session.owner);
    mine?.delete(id);
    if (mine?.size === 0) this.#byOwner.delete(session.owner);
  }

  /** How many sessions the store holds (its memory). */
  get size(): number {
    return this.#sessions.size;
  }

  /** How long a session lasts, for the cookie's Max-Age. */
  get ttlSeconds(): number {
    return SESSION_TTL_MS / 1000;
  }

  #sweep(full: boolean): void {
    const now = Date.now();
    if (now - this.#sweptAt < (full ? SWEEP_FULL_EVERY_MS : SWEEP_EVERY_MS)) return;
    this.#sweptAt = now;
    for (const [id, session] of this.#sessions) if (session.expiresAt <= now) this.close(id);
  }
}

/** The session id a request's Cookie header carries, or null. */
export function sessionIdOf(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=") || null;
  }
  return null;
}
