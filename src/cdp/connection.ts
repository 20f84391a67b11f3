import { EventEmitter } from "node:events";
import WebSocket from "ws";
import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import { CallbackRegistry, type CommandOptions, type ProtocolErrorPayload } from "./callback-registry.js";
import { TickCork } from "../transport/tick-cork.js";
import { CdpSession } from "./session.js";

/** A CDP command name. */
export type CommandName = keyof ProtocolMapping.Commands;
/** The params of a CDP command. */
export type CommandParams<M extends CommandName> = ProtocolMapping.Commands[M]["paramsType"][0];
/** The result of a CDP command. */
export type CommandResult<M extends CommandName> = ProtocolMapping.Commands[M]["returnType"];
/** A CDP event name. */
export type EventName = keyof ProtocolMapping.Events;
/** The payload of a CDP event. */
export type EventParams<E extends EventName> = ProtocolMapping.Events[E][0];

interface IncomingMessage {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: ProtocolErrorPayload;
  sessionId?: string;
}

const CONNECT_TIMEOUT_MS = 10_000;

/** The one browser-level CDP WebSocket; flattened sessions are routed over it by sessionId. */
export class CdpConnection extends EventEmitter {
  #ws: WebSocket;
  #out: TickCork;
  #nextId = 1;
  #callbacks = new CallbackRegistry();
  #sessions = new Map<string, CdpSession>();
  #closed = false;

  private constructor(ws: WebSocket) {
    super();
    this.#ws = ws;
    this.#out = new TickCork(ws);
    ws.on("message", (data) => this.#onMessage(data.toString()));
    ws.on("close", () => this.#onClose());
    ws.on("error", (error) => log.warn("cdp socket error", { error: error.message }));
  }

  /** Opens the browser-level socket; sends no Origin, as Chrome refuses unknown ones. */
  static connect(wsUrl: string, timeoutMs = CONNECT_TIMEOUT_MS): Promise<CdpConnection> {
    return new Promise((resolve, reject) => {
      // Chrome's frames are not checked for valid UTF-8 (JSON.parse reads them anyway): the peers' frames are.
      const ws = new WebSocket(wsUrl, { perMessageDeflate: false, skipUTF8Validation: true, maxPayload: 512 * 1024 * 1024, handshakeTimeout: timeoutMs });
      const fail = (error: Error): void => {
        ws.removeAllListeners();
        ws.on("error", () => {});
        ws.terminate();
        reject(new HubError("BROWSER_UNAVAILABLE", `cannot connect to Chrome at ${wsUrl}: ${error.message}`));
      };
      ws.once("error", fail);
      ws.once("open", () => {
        ws.off("error", fail);
        resolve(new CdpConnection(ws));
      });
    });
  }

  /** Whether the socket has closed. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Sends a browser-level command. */
  send<M extends CommandName>(method: M, params?: CommandParams<M>, options: CommandOptions = {}): Promise<CommandResult<M>> {
    return this.rawSend(method, params, options, undefined) as Promise<CommandResult<M>>;
  }

  /** Sends a command on the connection or, with `sessionId`, on that session; the registry settles it. */
  rawSend(method: string, params: unknown, options: CommandOptions, sessionId: string | undefined): Promise<unknown> {
    if (this.#closed) return Promise.reject(unavailable());
    if (options.signal?.aborted) return Promise.reject(options.signal.reason as Error);
    if (options.budget?.reason) return Promise.reject(options.budget.reason);
    const id = this.#nextId++;
    const registry = sessionId === undefined ? this.#callbacks : this.#sessions.get(sessionId)?.callbacks;
    if (!registry) return Promise.reject(new HubError("TARGET_CLOSED", "the tab's CDP session has closed"));
    const promise = registry.create(id, method, options);
    const message = sessionId === undefined ? { id, method, params } : { id, method, params, sessionId };
    this.#out.send(JSON.stringify(message));
    return promise;
  }

  /** Creates the session object for a flattened `sessionId` of `targetId`. */
  createSession(sessionId: string, targetId: string): CdpSession {
    const session = new CdpSession(this, sessionId, targetId);
    this.#sessions.set(sessionId, session);
    return session;
  }

  /** Forgets a session (after detach) and rejects its pending commands. */
  dropSession(sessionId: string, error: HubError): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    this.#sessions.delete(sessionId);
    session.markClosed(error);
  }

  /** Closes the socket; pending commands fail with BROWSER_UNAVAILABLE. */
  close(): void {
    if (this.#closed) return;
    this.#ws.close();
    this.#onClose();
  }

  #onMessage(text: string): void {
    let message: IncomingMessage;
    try {
      message = JSON.parse(text) as IncomingMessage;
    } catch {
      log.warn("cdp sent a frame that is not JSON");
      return;
    }
    if (message.sessionId !== undefined) {
      const session = this.#sessions.get(message.sessionId);
      if (!session) return;
      if (message.id !== undefined) session.callbacks.settle(message.id, message.result, message.error);
      else if (message.method) session.emit(message.method, message.params);
      return;
    }
    if (message.id !== undefined) this.#callbacks.settle(message.id, message.result, message.error);
    else if (message.method) this.emit(message.method, message.params);
    // Whoever held the session has had its say above; a detached session is forgotten whoever held it.
    if (message.method === "Target.detachedFromTarget") {
      const { sessionId } = message.params as { sessionId: string };
      this.dropSession(sessionId, new HubError("TARGET_CLOSED", "the tab's CDP session was detached (the tab closed or crashed)"));
    }
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#callbacks.rejectAll(unavailable);
    for (const sessionId of [...this.#sessions.keys()]) this.dropSession(sessionId, unavailable());
    this.emit("disconnected");
  }
}

function unavailable(): HubError {
  return new HubError("BROWSER_UNAVAILABLE", "Chrome is not reachable; the hub is reconnecting, retry shortly");
}
