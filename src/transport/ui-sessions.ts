import { randomBytes } from "node:crypto";
import type { Grant } from "../transport/auth.js";

/** The name of the dashboard's session cookie. */
export const SESSION_COOKIE = "tabwire_session";

// A session lasts this long from sign-in, used or not: the dashboard asks for the token again after it.
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
// Sessions kept at once: a sign-in past this ends the oldest session, so signing in in a loop cannot grow the hub.
const MAX_SESSIONS = 1_000;

interface Session {
  grant: Grant;
  expiresAt: number;
}

/**
 * The dashboard's sign-ins: a random id (the HttpOnly cookie's value) for the grant of the token it was made with,
 * so the page never holds the token. A session reaches exactly what its token reaches.
 */
export class UiSessions {
  #sessions = new Map<string, Session>();

  /** Makes a session for a grant; returns its id. */
  open(grant: Grant): string {
    this.#sweep();
    if (this.#sessions.size >= MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
    const id = randomBytes(32).toString("base64url");
    this.#sessions.set(id, { grant, expiresAt: Date.now() + SESSION_TTL_MS });
    return id;
  }

  /** The grant of a live session, or null. */
  grantOf(id: string): Grant | null {
    const session = this.#sessions.get(id);
    if (!session) return null;
    if (session.expiresAt <= Date.now()) {
      this.#sessions.delete(id);
      return null;
    }
    return session.grant;
  }

  /** Ends a session (sign out). */
  close(id: string): void {
    this.#sessions.delete(id);
  }

  /** How long a session lasts, for the cookie's Max-Age. */
  get ttlSeconds(): number {
    return SESSION_TTL_MS / 1000;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) if (session.expiresAt <= now) this.#sessions.delete(id);
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
