import type WebSocket from "ws";
import { AgentHandshake, type AgentHandshakeOptions } from "./agent-handshake.js";
import type { Router } from "../rpc/router.js";
import { RegistrationGuard } from "../transport/registration-guard.js";
import { RpcPeer } from "../transport/rpc-peer.js";

/** What an agent connection needs besides its socket. */
export interface AgentPeerOptions<S> extends AgentHandshakeOptions {
  router: Router<S>;
  peer: string;
  highWaterBytes: number;
  slowReaderTimeoutMs: number;
  /** AGENT_REGISTER_TIMEOUT_MS: how long the socket may stay unregistered. */
  registerTimeoutMs: number;
  /** Told of the peer once it exists (the hub's drain tells every agent it is stopping). */
  onPeer?: (peer: RpcPeer<S>) => void;
}

/**
 * One DevTools agent on / or /agent: its control frames and the answers to the hub's calls go to the handshake, its
 * own JSON-RPC calls to the router, scoped to its base client once it has registered (to nothing before).
 */
export function openAgentPeer<S>(ws: WebSocket, options: AgentPeerOptions<S>): AgentHandshake {
  const { router, peer: address, highWaterBytes, slowReaderTimeoutMs, registerTimeoutMs, onPeer, ...handshakeOptions } = options;
  let handshake: AgentHandshake | null = null;
  const guard = new RegistrationGuard({
    timeoutMs: registerTimeoutMs,
    isRegistered: () => handshake?.record != null,
    close: (code, reason) => ws.close(code, reason),
  });
  const peer = new RpcPeer(ws, {
    router,
    scope: new Set(),
    peer: address,
    highWaterBytes,
    slowReaderTimeoutMs,
    intercept: (frame) => handshake?.intercept(frame) ?? false,
    admit: (bytes) => guard.admit(bytes),
  });
  onPeer?.(peer);
  peer.state.kind = "agent";
  // A paused agent's own calls wait for agent.resume, each within its budget.
  peer.state.gate = (budget) => (handshake?.record ? handshakeOptions.registry.whenResumed(handshake.record, budget) : undefined);
  const socket = {
    sendFrame: (frame: object) => peer.sendFrame(frame),
    close: (code: number, reason: string) => peer.close(code, reason),
    setScope: (scope: ReadonlySet<string>) => {
      peer.state.scope = scope;
      peer.state.who = `agent of ${[...scope].join(",")}`;
    },
  };
  const created = new AgentHandshake(socket, handshakeOptions);
  handshake = created;
  ws.on("close", () => {
    guard.stop();
    created.onClose();
  });
  return created;
}
