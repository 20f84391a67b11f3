import type { IncomingMessage } from "node:http";
import { isForeignOrigin, isLoopback, tokenFromRequest, type Authenticator, type Grant } from "./auth.js";
import { AuthFailures, sourceOf, type AuthFailureLimits } from "./auth-failures.js";
import { sessionIdOf, type UiSessions } from "./ui-sessions.js";

/** Which door a request comes through: orchestrators (/rpc and the HTTP API) or agents (/ and /agent). */
export type Door = "orchestrator" | "agent";

/** What a request may do: its grant, and whether it proved who it is (an agent may still present its key in register). */
export interface Admission {
  grant: Grant;
  authenticated: boolean;
}

/** Why a request was refused, as an HTTP status and a message that says what to do (429: and when to retry). */
export interface Refusal {
  status: 401 | 403 | 429;
  message: string;
  retryAfterMs?: number;
}

/** What the policy is made of: orchestrator tokens, agent keys, and the operator's allowlists. */
export interface AccessPolicyOptions {
  tokens: Authenticator;
  agentKeys: Authenticator;
  allowedOrigins: ReadonlySet<string>;
  /** ALLOWED_HOSTS, lower-cased: Host names a token-less hub answers besides loopback names and HOST. */
  allowedHosts: ReadonlySet<string>;
  /** HOST, the address the hub listens on. */
  host: string;
  /** ALLOW_OPEN: a token-less door serves every peer address. */
  allowOpen: boolean;
  /** The dashboard's sign-ins: a session cookie stands for its token on the orchestrator door, from the hub's own pages. */
  sessions?: UiSessions;
  /** AUTH_FAILURES_PER_MIN and AUTH_FAILURES_GLOBAL_PER_MIN (default 20 and 300). */
  failureLimits?: AuthFailureLimits;
}

// The DevTools panel a Browser Operator agent lives in opens its socket with this Origin.
const DEVTOOLS_ORIGIN = "devtools://devtools";
const DEFAULT_FAILURE_LIMITS: AuthFailureLimits = { perSourcePerMinute: 20, globalPerMinute: 300 };

/**
 * The one place that decides who may come in, for WebSocket upgrades and HTTP requests alike: the Origin allowlist,
 * then, on a door with no token (or agent key) configured, loopback peers only (unless ALLOW_OPEN) and a Host header
 * of this machine's (so a web page cannot reach the hub by DNS rebinding), then the failed-authentication limit
 * (429 without reading the credential), then the token; every failed check is counted against its source.
 */
export class AccessPolicy {
  #options: AccessPolicyOptions;
  #failures: AuthFailures;

  constructor(options: AccessPolicyOptions) {
    this.#options = options;
    this.#failures = new AuthFailures(options.failureLimits ?? DEFAULT_FAILURE_LIMITS);
  }

  /** Whether a door serves every peer without a token (ALLOW_OPEN on a hub with none), for the start-up warning. */
  isWideOpen(door: Door): boolean {
    return this.#keysOf(door).isOpen && this.#options.allowOpen;
  }

  /** Decides a request at `door`; an agent that sends no key yet is admitted unauthenticated (it may present one in register). */
  decide(request: IncomingMessage, url: URL, door: Door): Admission | Refusal {
    const originRefusal = this.#checkOrigin(request, door);
    if (originRefusal) return originRefusal;
    const keys = this.#keysOf(door);
    if (keys.isOpen) return this.#openDoor(request, door);
    const source = sourceOf(request.socket.remoteAddress);
    const throttled = this.#throttled(source);
    if (throttled) return throttled;
    const token = tokenFromRequest(request, url);
    if (token === null && door === "agent") return { grant: { scope: null, capabilities: null }, authenticated: false };
    const grant = keys.check(token) ?? (token === null && door === "orchestrator" ? this.#sessionGrant(request) : null);
    if (grant) return this.#admitted(source, grant);
    this.#failures.failed(source);
    if (door === "agent")
      return { status: 401, message: "the agent key is wrong: use one of the hub's agent keys (AUTH_KEY or AGENT_KEYS) as ?token=<key>" };
    return { status: 401, message: "a valid token is required: send Authorization: Bearer <token> or ?token=<token>" };
  }

  /**
   * Checks the key an agent presents in register (null: none, where one is required), from peer `address`: its
   * grant, 401 when it is wrong or missing, 429 while the source is over the failed-authentication limit.
   */
  checkAgentKey(address: string | undefined, secret: string | null): Grant | Refusal {
    const source = sourceOf(address);
    const throttled = this.#throttled(source);
    if (throttled) return throttled;
    const grant = secret === null ? null : this.#options.agentKeys.check(secret);
    if (grant) return this.#admitted(source, grant).grant;
    this.#failures.failed(source);
    if (secret !== null) return { status: 401, message: "the secretKey is wrong" };
    return { status: 401, message: "authentication required: connect with ?token=<AUTH_KEY> or send secretKey in register" };
  }

  /**
   * Decides the dashboard's sign-in with the token typed into it: the same Origin and Host rules as any request, then
   * the token (any token, or none, on a token-less hub, which serves loopback only).
   */
  signIn(request: IncomingMessage, token: string): Admission | Refusal {
    const originRefusal = this.#checkOrigin(request, "orchestrator");
    if (originRefusal) return originRefusal;
    const { tokens } = this.#options;
    if (tokens.isOpen) return this.#openDoor(request, "orchestrator");
    const source = sourceOf(request.socket.remoteAddress);
    const throttled = this.#throttled(source);
    if (throttled) return throttled;
    const grant = tokens.check(token);
    if (grant) return this.#admitted(source, grant);
    this.#failures.failed(source);
    return { status: 401, message: "that token is not one of this hub's: sign in with a token from HUB_TOKEN or HUB_TOKENS" };
  }

  #throttled(source: string): Refusal | null {
    const throttle = this.#failures.throttle(source);
    return throttle && { status: 429, message: throttle.message, retryAfterMs: throttle.retryAfterMs };
  }

  #admitted(source: string, grant: Grant): Admission {
    this.#failures.succeeded(source);
    return { grant, authenticated: true };
  }

  #checkOrigin(request: IncomingMessage, door: Door): Refusal | null {
    const origin = request.headers.origin;
    if (isOwnOrigin(origin, request.headers.host)) return null;
    if (isForeignOrigin(origin, this.#options.allowedOrigins) && !(door === "agent" && origin === DEVTOOLS_ORIGIN)) {
      return { status: 403, message: `Origin ${origin.slice(0, 200)} is not allowed; the hub's operator can add it to ALLOWED_ORIGINS` };
    }
    return null;
  }

  /** A door with no token or key configured: every peer with ALLOW_OPEN, else loopback peers naming this machine. */
  #openDoor(request: IncomingMessage, door: Door): Admission | Refusal {
    if (this.#options.allowOpen) return { grant: { scope: null, capabilities: null }, authenticated: true };
    const who = door === "agent" ? "agents" : "peers";
    const setting = door === "agent" ? "AUTH_KEY" : "HUB_TOKEN";
    if (!isLoopback(request.socket.remoteAddress)) {
      return {
        status: 403,
        message: `the hub has no ${setting} configured and accepts loopback ${who} only; set ${setting} to allow others`,
      };
    }
    const host = request.headers.host;
    if (host !== undefined && !this.#isOwnHost(host)) {
      return {
        status: 403,
        message: `Host ${host.slice(0, 200)} is not this hub's: a hub with no ${setting} answers loopback names and HOST only; the operator can add it to ALLOWED_HOSTS`,
      };
    }
    return { grant: { scope: null, capabilities: null }, authenticated: true };
  }

  /**
   * The grant of the dashboard's session cookie: from the hub's own pages (Origin this hub), or a GET with no Origin
   * (the browser's own same-origin reads); never from another site's page, even one in ALLOWED_ORIGINS.
   */
  #sessionGrant(request: IncomingMessage): Grant | null {
    const { sessions } = this.#options;
    const id = sessions ? sessionIdOf(request.headers.cookie) : null;
    if (!sessions || id === null) return null;
    const { origin, host } = request.headers;
    const fromOwnPage = isOwnOrigin(origin, host) || (origin === undefined && request.method === "GET");
    return fromOwnPage ? sessions.grantOf(id) : null;
  }

  #keysOf(door: Door): Authenticator {
    return door === "agent" ? this.#options.agentKeys : this.#options.tokens;
  }

  /** Whether a Host header names this machine: a loopback name or address, HOST, or one of ALLOWED_HOSTS. */
  #isOwnHost(header: string): boolean {
    let hostname: string;
    try {
      hostname = new URL(`http://${header}`).hostname.toLowerCase();
    } catch {
      return false;
    }
    const { allowedHosts, host } = this.#options;
    if (allowedHosts.has(hostname) || allowedHosts.has(header.toLowerCase())) return true;
    if (hostname === host.toLowerCase() || hostname === "localhost" || hostname.endsWith(".localhost")) return true;
    return hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
  }
}

/** Whether a decision refused the request. */
export function isRefusal(decision: Admission | Refusal): decision is Refusal {
  return "status" in decision;
}

/** Whether an Origin is the hub's own: the page was served by this hub at the address the request was sent to. */
export function isOwnOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined || host === undefined) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
