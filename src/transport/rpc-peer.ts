import WebSocket from "ws";
import type { Capability } from "../capabilities.js";
import { newId } from "../ids.js";
import { log } from "../log.js";
import type { ConnectionState } from "../rpc/method.js";
import type { Router } from "../rpc/router.js";
import { TickCork } from "../tick-cork.js";
import type { ResumeRegistry } from "./resume-registry.js";
import { PeerSession, type SessionSink, type SessionTunnel } from "./resume-session.js";

// How often a peer whose reading is paused is checked for room again.
const DRAIN_POLL_MS = 20;

/** What a peer needs besides its socket. */
export interface RpcPeerOptions<S> {
  router: Router<S>;
  scope: ReadonlySet<string> | null;
  /** What its token may do (ConnectionState.capabilities); absent: everything. */
  capabilities?: ReadonlySet<Capability> | null;
  peer: string;
  /** Who the connection acts for, for audit.log (ConnectionState.who). */
  who?: string;
  /** The caller's W3C trace context from the upgrade (ConnectionState.traceparent). */
  traceparent?: string;
  highWaterBytes: number;
  /** Agents only: sees every object frame first and returns true for the ones it handled (control frames, answers). */
  intercept?: (frame: Record<string, unknown>) => boolean;
  /** Agents only: whether a frame of that many bytes may be handled at all (an unregistered agent's budget). */
  admit?: (bytes: number) => boolean;
  /** A socket that stays over the high-water mark this long is closed with 1013 (try again later). */
  slowReaderTimeoutMs: number;
  /** /rpc connections that asked for resume: the session made for them, kept by `resumes` when the socket drops. */
  resumable?: { session: PeerSession; resumes: ResumeRegistry };
}

// Close codes of a peer that meant to leave (1000) or is going away for good (1001): its session ends with it.
const LEAVING_CODES = new Set([1000, 1001]);

/** One orchestrator connection on /rpc: frames in, answers out, its in-flight calls cancelled when it closes. */
export class RpcPeer<S> {
  #ws: WebSocket;
  #out: TickCork;
  #options: RpcPeerOptions<S>;
  #overSince: number | null = null;
  // What the connection built up; session.resume may swap in the one of a connection that dropped.
  #session: PeerSession;
  #sink: SessionSink;
  #gone = false;
  // Set once the connection resumed a session another hub instance keeps: its frames go there, as they are.
  #tunnel: SessionTunnel | null = null;
  /** Set while the peer's frames are not read because it does not read the hub's: polls for room. */
  #drainTimer: NodeJS.Timeout | null = null;

  constructor(ws: WebSocket, options: RpcPeerOptions<S>) {
    this.#ws = ws;
    this.#out = new TickCork(ws);
    this.#options = options;
    this.#session =
      options.resumable?.session ??
      new PeerSession({
        ...{ id: newId(), scope: options.scope, capabilities: options.capabilities ?? null, peer: options.peer, binding: "" },
        ...(options.who === undefined ? {} : { who: options.who }),
        ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
      });
    this.#sink = {
      write: (text) => this.#send(text),
      isOverHighWater: () => this.#isOverHighWater(),
      bufferedBytes: () => ws.bufferedAmount,
      adopt: (session) => (this.#session = session),
      // A socket that closed while its resume travelled lets the session go back to being kept.
      relay: (tunnel) => (this.#gone ? tunnel.closed(true) : (this.#tunnel = tunnel)),
      close: (code, reason) => this.close(code, reason),
    };
    this.#session.attach(this.#sink);
    ws.on("message", (data) => this.#onMessage(data as Buffer));
    // ws emits "close" once; on() spares the wrapper once() keeps per listener (about 110 bytes a connection each).
    ws.on("close", (code) => this.#onClose(code));
    ws.on("error", (error) => log.debug("rpc socket error", { connection: this.state.id, error: error.message }));
  }

  /** What the router knows of the connection: its session's. */
  get state(): ConnectionState {
    return this.#session.state;
  }

  /** Sends a notification unless the peer is too far behind, in which case it is dropped; returns whether it was sent. */
  notify(method: string, params: object): boolean {
    return this.#session.notify(method, params);
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
    if (this.#tunnel) return this.#gone ? undefined : this.#tunnel.send(data.toString("utf8"));
    // A connection the hub has let go (closing, or dropped as a slow reader) gets no answers: its frames run nothing.
    if (this.#gone || this.#session.isReleased || this.#session.sink !== this.#sink) return;
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
      // Through the session: after a drop its answer waits there for a resume, or goes to the socket that resumed it.
      (reply) => {
        if (reply !== null) this.#session.answer(reply);
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
    if (this.#drainTimer || this.#gone) return;
    this.#ws.pause();
    this.#drainTimer = setInterval(() => {
      if (this.#isOverHighWater() && !this.#gone) return;
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
    if (now - this.#overSince > this.#options.slowReaderTimeoutMs && !this.#gone) {
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
    if (this.#tunnel) {
      this.#tunnel.closed(!this.#gone && !LEAVING_CODES.has(code));
      this.#gone = true;
      return void log.info("rpc connection closed", { connection: this.state.id, code, tunnel: true });
    }
    const dropped = !this.#gone && !LEAVING_CODES.has(code) && this.#session.sink === this.#sink;
    const resumes = this.#options.resumable?.resumes;
    if (dropped && resumes && this.#session.isResumable) {
      // A socket that dropped keeps its session for RESUME_WINDOW_MS: its calls run on, its notifications are kept.
      this.#gone = true;
      resumes.drop(this.#session);
    } else this.#release("the connection closed");
    log.info("rpc connection closed", { connection: this.state.id, code });
  }

  /** Cancels the connection's in-flight calls and ends what it holds (subscriptions, pending agent calls), once. */
  #release(why: string): void {
    if (this.#gone) return;
    this.#gone = true;
    // A session another socket resumed is that socket's now.
    if (this.#session.sink !== this.#sink) return;
    const resumes = this.#options.resumable?.resumes;
    if (resumes) resumes.close(this.#session, why);
    else this.#session.release(why);
  }
}
