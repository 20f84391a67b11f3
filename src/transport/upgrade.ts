import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { isLoopback, tokenFromRequest, type Authenticator, type Grant } from "./auth.js";

/** An upgrade the hub accepted: which endpoint, and what the caller may reach. */
export interface AcceptedUpgrade {
  endpoint: "rpc";
  grant: Grant;
  peer: string;
}

/** Why an upgrade was refused, as an HTTP status and a message for people. */
export interface RefusedUpgrade {
  status: 401 | 403 | 404;
  message: string;
}

/** What deciding an upgrade needs. */
export interface UpgradeGate {
  authenticator: Authenticator;
  allowedOrigins: ReadonlySet<string>;
}

const ENDPOINTS: Readonly<Record<string, AcceptedUpgrade["endpoint"]>> = { "/rpc": "rpc" };

/** Decides an upgrade before any 101: the path, the Origin allowlist (403), then the token (401). */
export function decideUpgrade(request: IncomingMessage, gate: UpgradeGate): AcceptedUpgrade | RefusedUpgrade {
  const url = new URL(request.url ?? "/", "http://hub.invalid");
  const endpoint = ENDPOINTS[url.pathname];
  if (!endpoint) return { status: 404, message: `no WebSocket endpoint at ${url.pathname.slice(0, 100)}; orchestrators connect to /rpc` };
  const origin = request.headers.origin;
  if (origin !== undefined && !gate.allowedOrigins.has(origin)) {
    return { status: 403, message: `Origin ${origin.slice(0, 200)} is not allowed; the hub's operator can add it to ALLOWED_ORIGINS` };
  }
  const peer = request.socket.remoteAddress ?? "unknown";
  if (gate.authenticator.isOpen && !isLoopback(peer)) {
    return { status: 403, message: "the hub has no tokens configured and accepts loopback peers only; set HUB_TOKEN to allow others" };
  }
  const grant = gate.authenticator.check(tokenFromRequest(request, url));
  if (!grant) return { status: 401, message: "a valid token is required: send Authorization: Bearer <token> or ?token=<token>" };
  return { endpoint, grant, peer };
}

/** Answers a refused upgrade with a plain HTTP response and closes the socket, so no 101 is ever sent. */
export function refuseUpgrade(socket: Duplex, refusal: RefusedUpgrade): void {
  const body = JSON.stringify({ error: { code: refusal.status, message: refusal.message } });
  const reason = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" }[refusal.status];
  socket.end(
    `HTTP/1.1 ${refusal.status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
