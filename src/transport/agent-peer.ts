import type WebSocket from "ws";
import { AgentHandshake, type AgentHandshakeOptions } from "../clients/agent-handshake.js";
import type { Router } from "../rpc/router.js";
import { RpcPeer } from "./rpc-peer.js";

/** What an agent connection needs besides its socket. */
export interface AgentPeerOptions<S> extends AgentHandshakeOptions {
  router: Router<S>;
  peer: string;
  highWaterBytes: number;
  slowReaderTimeoutMs: number;
}

/**
 * One DevTools agent on / or /agent: its control frames and the answers to the hub's calls go to the handshake, its
 * own JSON-RPC calls to the router, scoped to its base client once it has registered (to nothing before).
 */
export function openAgentPeer<S>(ws: WebSocket, options: AgentPeerOptions<S>): AgentHandshake {
  const { router, peer: address, highWaterBytes, slowReaderTimeoutMs, ...handshakeOptions } = options;
  let handshake: AgentHandshake | null = null;
  const peer = new RpcPeer(ws, {
    router,
    scope: new Set(),
    peer: address,
    highWaterBytes,
    slowReaderTimeoutMs,
    intercept: (frame) => handshake?.intercept(frame) ?? false,
  });
  const socket = {
    sendFrame: (frame: object) => peer.sendFrame(frame),
    close: (code: number, reason: string) => peer.close(code, reason),
    setScope: (scope: ReadonlySet<string>) => {
      peer.state.scope = scope;
    },
  };
  const created = new AgentHandshake(socket, handshakeOptions);
  handshake = created;
  ws.on("close", () => created.onClose());
  return created;
}
