import { log } from "../log.js";
import type { Router } from "../rpc/router.js";
import type { HubServices } from "../services.js";
import type { ResumeRegistry } from "../transport/resume-registry.js";
import type { PeerSession, SessionSink } from "../transport/resume-session.js";
import { HubError } from "../errors.js";
import { FrameBatch } from "./frame-batch.js";
import type { FrameMessage, ResumeMessage, UntunnelMessage } from "./messages.js";
import type { ClusterRegistry } from "./registry.js";

/** A session kept here whose socket is on another instance. */
interface Host {
  from: string;
  conn: string;
  session: PeerSession | null;
  sink: SessionSink;
  /** What the session wrote this tick, not sent yet. */
  out: FrameBatch;
}

/** What serving the sessions needs from the hub: the /rpc router and the sessions it keeps. */
export interface SessionServing {
  router: Router<HubServices>;
  resumes: ResumeRegistry;
}

/**
 * The keeper's side of a resume in a cluster: a caller whose socket is on another instance takes over a session kept
 * here, under the same rules as a caller here (the grant that made it, the seq it saw). Its frames then run here
 * through the hub's own router, on the session's connection, and what the session writes goes back to the socket.
 */
export class SessionHosts {
  #registry: ClusterRegistry;
  #timeoutMs: number;
  #serving: SessionServing | null = null;
  #hosts = new Map<string, Host>();

  constructor(options: { registry: ClusterRegistry; timeoutMs: number }) {
    this.#registry = options.registry;
    this.#timeoutMs = options.timeoutMs;
  }

  /** Starts taking resumes for the hub's sessions. */
  serve(serving: SessionServing): void {
    this.#serving = serving;
  }

  /** A socket on another instance asks for a session kept here. */
  onResume(message: ResumeMessage): void {
    const key = hostKey(message.from, message.conn);
    const out = new FrameBatch((texts) => this.#sendDown(message.from, message.conn, texts));
    const host: Host = { from: message.from, conn: message.conn, session: null, sink: this.#sinkOf(message.from, message.conn, out), out };
    this.#hosts.set(key, host);
    const wanted = { id: message.session, lastSeq: message.lastSeq };
    const answer = this.#serving
      ? this.#serving.resumes.takeOver(message.binding, wanted, host.sink)
      : { resumed: false, session: "", reason: "unknown" as const, lost: { calls: [] } };
    if (!answer.resumed) this.#hosts.delete(key);
    out.flush();
    const me = this.#registry.instanceId;
    // After the replayed frames, on the same channel: the socket has them before it has the answer.
    this.#registry
      .send(message.from, { type: "resumed", id: message.id, from: me, answer: JSON.stringify(answer) }, this.#timeoutMs)
      .catch(() => {});
  }

  /** A frame of the socket: runs on the session, and its answer goes back the same way. */
  onFrame(message: FrameMessage): void {
    const host = this.#hosts.get(hostKey(message.from, message.conn));
    const session = host?.session;
    if (!host || !session || !this.#serving || session.sink !== host.sink || session.isReleased) return;
    for (const text of message.texts) {
      this.#serving.router.handleFrame(text, session.state).then(
        (reply) => {
          if (reply !== null) session.answer(reply);
        },
        (error: unknown) => log.error("cluster: cannot answer a tunnelled frame", { session: session.id, error: (error as Error).stack }),
      );
    }
  }

  /** The socket closed: the session is kept for another resume when it dropped, else it ends. */
  onUntunnel(message: UntunnelMessage): void {
    const key = hostKey(message.from, message.conn);
    const host = this.#hosts.get(key);
    if (!host) return;
    this.#hosts.delete(key);
    this.#release(host, message.dropped);
  }

  /** The instances whose sockets hold sessions of this one. */
  callers(): string[] {
    return [...new Set([...this.#hosts.values()].map((host) => host.from))];
  }

  /** A caller's instance died: its sockets' sessions are kept for a resume through another instance. */
  callerGone(instance: string): void {
    for (const [key, host] of [...this.#hosts]) {
      if (host.from !== instance) continue;
      this.#hosts.delete(key);
      this.#release(host, true);
    }
  }

  #release(host: Host, dropped: boolean): void {
    const session = host.session;
    if (!session || session.sink !== host.sink || !this.#serving) return;
    if (dropped) this.#serving.resumes.drop(session);
    else this.#serving.resumes.close(session, "the connection closed");
  }

  // What a session writes goes to its socket's instance, in order, a tick's worth at a time.
  #sinkOf(from: string, conn: string, out: FrameBatch): SessionSink {
    const me = this.#registry.instanceId;
    const key = hostKey(from, conn);
    return {
      write: (text) => out.add(text),
      // Redis takes what is published at once: the socket's own instance holds back a slow reader.
      isOverHighWater: () => false,
      bufferedBytes: () => 0,
      adopt: (session) => {
        const host = this.#hosts.get(key);
        if (host) host.session = session;
      },
      relay: () => {},
      close: (code, reason) => {
        out.flush();
        this.#hosts.delete(key);
        this.#registry.send(from, { type: "untunnel", from: me, conn, dropped: false, code, reason }, this.#timeoutMs).catch(() => {});
      },
    };
  }

  // A batch too big to send goes frame by frame; a frame too big alone is dropped (a notification, as for a reader far
  // behind) or becomes an error answer for its call.
  #sendDown(from: string, conn: string, texts: string[]): void {
    const me = this.#registry.instanceId;
    if (this.#registry.trySend(from, { type: "frame", direction: "down", from: me, conn, texts }, this.#timeoutMs)) return;
    if (texts.length > 1) return texts.forEach((text) => this.#sendDown(from, conn, [text]));
    const id = answerIdOf(texts[0] ?? "");
    if (id === undefined) return;
    const error = new HubError(
      "SERIALIZATION_FAILED",
      "the answer is over CLUSTER_MAX_MESSAGE_BYTES, the most one hub instance sends another, and this connection's session lives on another instance; ask for less",
    );
    const answer = JSON.stringify({ jsonrpc: "2.0", id, error: error.toWire() });
    this.#registry.trySend(from, { type: "frame", direction: "down", from: me, conn, texts: [answer] }, this.#timeoutMs);
  }
}

function hostKey(from: string, conn: string): string {
  return `${from}/${conn}`;
}

/** The id of an answer frame (a notification has none: dropped, as for a reader far behind). */
function answerIdOf(text: string): string | number | null | undefined {
  try {
    const frame = JSON.parse(text) as { id?: unknown; method?: unknown };
    if (frame.method !== undefined) return undefined;
    return typeof frame.id === "string" || typeof frame.id === "number" || frame.id === null ? frame.id : undefined;
  } catch {
    return undefined;
  }
}
