import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { isForeignOrigin, isLoopback, tokenFromRequest, type Authenticator, type Grant } from "./auth.js";

/** An upgrade the hub accepted: which endpoint, what the caller (or the agent's key) may reach, and whether it already proved who it is. */
export interface AcceptedUpgrade {
  endpoint: "rpc" | "agent";
  grant: Grant;
  peer: string;
  /** False for an agent that sent no token yet: it must present AUTH_KEY as secretKey in register. */
  authenticated: boolean;
}

/** Why an upgrade was refused, as an HTTP status and a message for people. */
export interface RefusedUpgrade {
  status: 401 | 403 | 404;
  message: string;
}

/** What deciding an upgrade needs: orchestrator tokens, the agents' AUTH_KEY, and the Origin allowlist. */
export interface UpgradeGate {
  authenticator: Authenticator;
  agentKey: Authenticator;
  allowedOrigins: ReadonlySet<string>;
}

const ENDPOINTS: Readonly<Record<string, AcceptedUpgrade["endpoint"]>> = { "/rpc": "rpc", "/": "agent", "/agent": "agent" };
// The DevTools panel a Browser Operator agent lives in opens its socket with this Origin.
const DEVTOOLS_ORIGIN = "devtools://devtools";

/** Decides an upgrade before any 101: the path, the Origin allowlist (403), then the token (401). */
export function decideUpgrade(request: IncomingMessage, gate: UpgradeGate): AcceptedUpgrade | RefusedUpgrade {
  const url = new URL(request.url ?? "/", "http://hub.invalid");
  const endpoint = ENDPOINTS[url.pathname];
  if (!endpoint) {
    return { status: 404, message: `no WebSocket endpoint at ${url.pathname.slice(0, 100)}; orchestrators connect to /rpc, agents to / or /agent` };
  }
  const origin = request.headers.origin;
  if (isForeignOrigin(origin, gate.allowedOrigins) && !(endpoint === "agent" && origin === DEVTOOLS_ORIGIN)) {
    return { status: 403, message: `Origin ${origin.slice(0, 200)} is not allowed; the hub's operator can add it to ALLOWED_ORIGINS` };
  }
  const peer = request.socket.remoteAddress ?? "unknown";
  if (endpoint === "agent") return decideAgent(request, url, gate.agentKey, peer);
  if (gate.authenticator.isOpen && !isLoopback(peer)) {
    return { status: 403, message: "the hub has no tokens configured and accepts loopback peers only; set HUB_TOKEN to allow others" };
  }
  const grant = gate.authenticator.check(tokenFromRequest(request, url));
  if (!grant) return { status: 401, message: "a valid token is required: send Authorization: Bearer <token> or ?token=<token>" };
  return { endpoint, grant, peer, authenticated: true };
}

/** Agents: AUTH_KEY in the URL or a header is checked now; an agent that sends none may present it in register. */
function decideAgent(request: IncomingMessage, url: URL, agentKey: Authenticator, peer: string): AcceptedUpgrade | RefusedUpgrade {
  if (agentKey.isOpen) {
    if (isLoopback(peer)) return { endpoint: "agent", grant: { scope: null }, peer, authenticated: true };
    return { status: 403, message: "the hub has no AUTH_KEY configured and accepts loopback agents only; set AUTH_KEY to allow others" };
  }
  const token = tokenFromRequest(request, url);
  if (token === null) return { endpoint: "agent", grant: { scope: null }, peer, authenticated: false };
  const grant = agentKey.check(token);
  if (!grant) return { status: 401, message: "the agent key is wrong: use one of the hub's agent keys (AUTH_KEY or AGENT_KEYS) as ?token=<key>" };
  return { endpoint: "agent", grant, peer, authenticated: true };
}

/** Answers a refused upgrade with a plain HTTP response and closes the socket, so no 101 is ever sent. */
export function refuseUpgrade(socket: Duplex, refusal: RefusedUpgrade): void {
  const body = JSON.stringify({ error: { code: refusal.status, message: refusal.message } });
  const reason = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" }[refusal.status];
  socket.end(
    `HTTP/1.1 ${refusal.status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
