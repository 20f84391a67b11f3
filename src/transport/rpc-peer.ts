import { setMaxListeners } from "node:events";
import WebSocket from "ws";
import { HubError } from "../errors.js";
import { newId } from "../ids.js";
import { log } from "../log.js";
import { InflightTable } from "../rpc/inflight.js";
import type { ConnectionState } from "../rpc/method.js";
import type { Router } from "../rpc/router.js";
import { TickCork } from "../tick-cork.js";

// How often a peer whose reading is paused is checked for room again.
const DRAIN_POLL_MS = 20;

/** What a peer needs besides its socket. */
export interface RpcPeerOptions<S> {
  router: Router<S>;
  scope: ReadonlySet<string> | null;
  peer: string;
  highWaterBytes: number;
  /** Agents only: sees every object frame first and returns true for the ones it handled (control frames, answers). */
  intercept?: (frame: Record<string, unknown>) => boolean;
  /** Agents only: whether a frame of that many bytes may be handled at all (an unregistered agent's budget). */
  admit?: (bytes: number) => boolean;
  /** A socket that stays over the high-water mark this long is closed with 1013 (try again later). */
  slowReaderTimeoutMs: number;
}

/** One orchestrator connection on /rpc: frames in, answers out, its in-flight calls cancelled when it closes. */
export class RpcPeer<S> {
  readonly state: ConnectionState;
  #ws: WebSocket;
  #out: TickCork;
  #options: RpcPeerOptions<S>;
  #overSince: number | null = null;
  #closed = new AbortController();
  /** Set while the peer's frames are not read because it does not read the hub's: polls for room. */
  #drainTimer: NodeJS.Timeout | null = null;

  constructor(ws: WebSocket, options: RpcPeerOptions<S>) {
    this.#ws = ws;
    this.#out = new TickCork(ws);
    // Each subscription and live view of the connection listens for its end; MAX_SUBSCRIPTIONS bounds them, not 10.
    setMaxListeners(0, this.#closed.signal);
    this.#options = options;
    this.state = {
      id: newId(),
      scope: options.scope,
      peer: options.peer,
      inflight: new InflightTable(),
      closed: this.#closed.signal,
      notify: (method, params) => this.notify(method, params),
      bufferedBytes: () => ws.bufferedAmount,
    };
    ws.on("message", (data) => this.#onMessage(data as Buffer));
    // ws emits "close" once; on() spares the wrapper once() keeps per listener (about 110 bytes a connection each).
    ws.on("close", (code) => this.#onClose(code));
    ws.on("error", (error) => log.debug("rpc socket error", { connection: this.state.id, error: error.message }));
  }

  /** Sends a notification unless the peer is too far behind, in which case it is dropped; returns whether it was sent. */
  notify(method: string, params: object): boolean {
    if (this.#isOverHighWater()) return false;
    const text = this.#encode({ jsonrpc: "2.0", method, params });
    if (text === null) return false;
    this.#send(text);
    return true;
  }

  /** Sends a frame as it is (agent control frames); one that cannot be written is dropped and logged. */
  sendFrame(frame: object): void {
    const text = this.#encode(frame);
    if (text !== null) this.#send(text);
  }

  /** Closes the connection with a code and reason. */
  close(code: number, reason: string): void {
    this.#ws.close(code, reason);
  }

  // With the default binaryType every frame arrives as one Buffer; binary frames are read as UTF-8 JSON too.
  #onMessage(data: Buffer): void {
    // A connection the hub has let go (closing, or dropped as a slow reader) gets no answers: its frames run nothing.
    if (this.#closed.signal.aborted) return;
    if (this.#options.admit && !this.#options.admit(data.length)) return;
    const text = data.toString("utf8");
    const intercept = this.#options.intercept;
    if (!intercept) return this.#route(this.#options.router.handleFrame(text, this.state));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.#route(this.#options.router.handleFrame(text, this.state));
    }
    const frame = value as Record<string, unknown> | null;
    if (frame !== null && typeof frame === "object" && !Array.isArray(frame) && intercept(frame)) return;
    this.#route(this.#options.router.handleValue(value, this.state));
  }

  #route(answer: Promise<string | null>): void {
    answer.then(
      (reply) => {
        if (reply !== null) this.#send(reply);
      },
      (error: unknown) => log.error("cannot answer a frame", { connection: this.state.id, error: (error as Error).stack }),
    );
  }

  /** A frame as text, or null (logged) when it is too deep or too big to write: a peer's data never throws here. */
  #encode(frame: object): string | null {
    try {
      return JSON.stringify(frame);
    } catch (error) {
      log.warn("dropped a frame that cannot be written", { connection: this.state.id, error: (error as Error).message });
      return null;
    }
  }

  #send(text: string): void {
    if (this.#ws.readyState !== WebSocket.OPEN) return;
    this.#out.send(text);
    if (this.#isOverHighWater()) this.#holdBack();
  }

  /**
   * Stops reading a peer's frames while it does not read the hub's answers, so its requests cannot pile answers up
   * in the hub's memory; reading resumes when there is room, or the peer is closed past SLOW_READER_TIMEOUT_MS.
   */
  #holdBack(): void {
    if (this.#drainTimer || this.#closed.signal.aborted) return;
    this.#ws.pause();
    this.#drainTimer = setInterval(() => {
      if (this.#isOverHighWater() && !this.#closed.signal.aborted) return;
      this.#stopHoldingBack();
    }, DRAIN_POLL_MS);
  }

  #stopHoldingBack(): void {
    if (!this.#drainTimer) return;
    clearInterval(this.#drainTimer);
    this.#drainTimer = null;
    // A closing socket must be read too: the peer's half of the closing handshake comes that way.
    this.#ws.resume();
  }

  #isOverHighWater(): boolean {
    if (this.#ws.bufferedAmount <= this.#options.highWaterBytes) {
      this.#overSince = null;
      return false;
    }
    const now = Date.now();
    this.#overSince ??= now;
    if (now - this.#overSince > this.#options.slowReaderTimeoutMs && !this.#closed.signal.aborted) {
      // Its calls are abandoned now, not when the socket finally goes (ws gives a closing peer 30 s to answer, so
      // one that reads again still learns why): nobody would read their answers.
      log.warn("closing a connection that stopped reading", {
        connection: this.state.id,
        peer: this.state.peer,
        bufferedBytes: this.#ws.bufferedAmount,
      });
      this.#release("the connection stopped reading");
      this.#stopHoldingBack();
      this.close(1013, "the connection stopped reading");
    }
    return true;
  }

  #onClose(code: number): void {
    this.#stopHoldingBack();
    this.#release("the connection closed");
    log.info("rpc connection closed", { connection: this.state.id, code });
  }

  /** Cancels the connection's in-flight calls and ends what it holds (subscriptions, pending agent calls), once. */
  #release(why: string): void {
    if (this.#closed.signal.aborted) return;
    this.state.inflight.cancelAll(new HubError("CANCELLED", why));
    this.#closed.abort();
  }
}
