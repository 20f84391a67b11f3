import type { ServerResponse } from "node:http";
import type WebSocket from "ws";
import { ErrorCode, HubError } from "../errors.js";
import { log } from "../log.js";
import type { DrainGate } from "../rpc/drain-gate.js";
import type { RpcPeer } from "./rpc-peer.js";
import type { RefusedUpgrade } from "./upgrade.js";

// Past the deadline the calls still running are cancelled; this is how long their CANCELLED answers get to go out.
const CANCEL_GRACE_MS = 300;
// What a load balancer and a monitor read while the hub drains.
const OPEN_WHILE_DRAINING = new Set(["/health", "/metrics"]);

/** What a drain ended with: how many calls were still running at its end (cancelled), and whether a signal cut it short. */
export interface DrainOutcome {
  unfinished: number;
  cutShort: boolean;
}

/**
 * The hub's drain on SIGTERM or SIGINT: every /rpc and agent peer is told (`hub.draining`), new connections and calls
 * are refused while the running calls finish, and what still runs at the deadline is cancelled with an answer.
 */
export class HubDrain {
  readonly gate: DrainGate;
  #timeoutMs: number;
  #peers = new Set<RpcPeer<unknown>>();

  constructor(gate: DrainGate, timeoutMs: number) {
    this.gate = gate;
    this.#timeoutMs = timeoutMs;
  }

  /** Keeps a peer until its socket closes, so the drain can tell it; one that connects during the drain is told at once. */
  track<S>(peer: RpcPeer<S>, ws: WebSocket): void {
    const known = peer as RpcPeer<unknown>;
    this.#peers.add(known);
    // ws emits "close" once; on() spares the wrapper once() keeps per listener, as in RpcPeer.
    ws.on("close", () => this.#peers.delete(known));
    if (this.gate.isDraining) this.#tell(known);
  }

  /** The 503 an upgrade gets while the hub drains. */
  upgradeRefusal(): RefusedUpgrade {
    return { status: 503, message: this.gate.refusal().message, retryAfterMs: this.gate.refusalData().retryAfterMs, draining: true };
  }

  /**
   * Answers an HTTP request with 503 (OVERLOADED, `data.draining`) while the hub drains, but /health (which says so)
   * and /metrics (which show the drain); false when it did not answer.
   */
  refuseRequest(url: URL, response: ServerResponse): boolean {
    if (!this.gate.isDraining || OPEN_WHILE_DRAINING.has(url.pathname)) return false;
    const { message } = this.gate.refusal();
    const data = this.gate.refusalData();
    const body = JSON.stringify({ error: { code: ErrorCode.OVERLOADED, message, data } });
    response
      .writeHead(503, {
        "content-type": "application/json",
        "retry-after": String(Math.ceil(data.retryAfterMs / 1000)),
        connection: "close",
      })
      .end(body);
    return true;
  }

  /**
   * Drains: refuses new work from now on, tells every peer, waits for the running calls until DRAIN_TIMEOUT_MS or
   * until `cutShort` aborts (a second signal), then cancels what still runs and gives the answers a moment to go out.
   */
  async run(cutShort?: AbortSignal): Promise<DrainOutcome> {
    const deadline = this.gate.begin(this.#timeoutMs);
    log.info("draining", { calls: this.gate.running, connections: this.#peers.size, timeoutMs: this.#timeoutMs });
    // One announcement for every peer: the same deadline and the same time left, whatever the time it takes to send.
    const toldAt = Date.now();
    for (const peer of this.#peers) this.#tell(peer, toldAt);
    await this.#idleWithin(deadline - Date.now(), cutShort);
    const unfinished = this.gate.running;
    if (unfinished > 0) {
      const why = cutShort?.aborted ? "a second signal" : "DRAIN_TIMEOUT_MS";
      const reason = new HubError("CANCELLED", `the hub stopped before the call finished (${why}); retry on a new connection`);
      for (const peer of this.#peers) peer.state.inflight.cancelAll(reason);
      await this.#idleWithin(CANCEL_GRACE_MS);
    }
    log.info("drained", { unfinished, cutShort: cutShort?.aborted ?? false });
    return { unfinished, cutShort: cutShort?.aborted ?? false };
  }

  #tell(peer: RpcPeer<unknown>, now = Date.now()): void {
    const deadline = this.gate.deadline ?? now;
    peer.notify("hub.draining", { deadline, timeoutMs: Math.max(0, deadline - now) });
  }

  /** Resolves when no call runs, after `ms`, or when `abort` fires, whichever comes first. */
  async #idleWithin(ms: number, abort?: AbortSignal): Promise<void> {
    if (abort?.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      this.gate.whenIdle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, ms));
        onAbort = resolve;
        abort?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) abort?.removeEventListener("abort", onAbort);
  }
}
