import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { isRefusal, type AccessPolicy } from "./access-policy.js";
import type { Grant } from "./auth.js";

/** An upgrade the hub accepted: which endpoint, what the caller (or the agent's key) may reach, and whether it already proved who it is. */
export interface AcceptedUpgrade {
  endpoint: "rpc" | "agent" | "cdp";
  grant: Grant;
  peer: string;
  /** False for an agent that sent no token yet: it must present its key as secretKey in register. */
  authenticated: boolean;
}

/** Why an upgrade was refused, as an HTTP status and a message for people (429: and when to retry). */
export interface RefusedUpgrade {
  status: 400 | 401 | 403 | 404 | 429 | 503;
  message: string;
  retryAfterMs?: number;
  /** The hub is draining before it stops (503): said in the body's data, so a client knows to go elsewhere. */
  draining?: true;
}

const ENDPOINTS: Readonly<Record<string, AcceptedUpgrade["endpoint"]>> = { "/rpc": "rpc", "/": "agent", "/agent": "agent", "/cdp": "cdp" };
const REASONS: Readonly<Record<RefusedUpgrade["status"], string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  503: "Service Unavailable",
};

/** Decides an upgrade before any 101: the path (404), then the access policy (Origin, Host, peer: 403; failed-auth limit: 429; token: 401). */
export function decideUpgrade(request: IncomingMessage, policy: AccessPolicy): AcceptedUpgrade | RefusedUpgrade {
  const url = new URL(request.url ?? "/", "http://hub.invalid");
  const endpoint = ENDPOINTS[url.pathname];
  if (!endpoint) {
    return {
      status: 404,
      message: `no WebSocket endpoint at ${url.pathname.slice(0, 100)}; orchestrators connect to /rpc (or raw CDP to /cdp), agents to / or /agent`,
    };
  }
  const decision = policy.decide(request, url, endpoint === "agent" ? "agent" : "orchestrator");
  if (isRefusal(decision)) return decision;
  return { endpoint, grant: decision.grant, peer: request.socket.remoteAddress ?? "unknown", authenticated: decision.authenticated };
}

/** Answers a refused upgrade with a plain HTTP response and closes the socket, so no 101 is ever sent. */
export function refuseUpgrade(socket: Duplex, refusal: RefusedUpgrade): void {
  const { status, message, retryAfterMs, draining } = refusal;
  const data = retryAfterMs === undefined ? {} : { data: { retryAfterMs, ...(draining ? { draining } : {}) } };
  const body = JSON.stringify({ error: { code: status, message, ...data } });
  const retryAfter = retryAfterMs === undefined ? "" : `Retry-After: ${Math.ceil(retryAfterMs / 1000)}\r\n`;
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${retryAfter}Connection: close\r\n\r\n${body}`,
  );
}
