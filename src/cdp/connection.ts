import { EventEmitter } from "node:events";
import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import { isTracing, traceChild } from "../tracing.js";
import { CallbackRegistry, type CommandOptions, type ProtocolErrorPayload } from "./callback-registry.js";
import { CdpSession } from "./session.js";
import type { CdpTransport, OversizedMessage } from "./transport.js";
import { WsTransport } from "./ws-transport.js";

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

/** The events of the browser-level connection: every CDP event of the browser target, and its loss. */
export type ConnectionEvents = ProtocolMapping.Events & { disconnected: [] };

interface IncomingMessage {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: ProtocolErrorPayload;
  sessionId?: string;
}

/** The one browser-level CDP connection, over a pipe or a WebSocket; flattened sessions are routed over it by sessionId. */
export class CdpConnection extends EventEmitter<ConnectionEvents> {
  #transport: CdpTransport;
  #nextId = 1;
  #callbacks = new CallbackRegistry();
  #sessions = new Map<string, CdpSession>();
  #closed = false;

  constructor(transport: CdpTransport) {
    super();
    this.#transport = transport;
    transport.listen({
      message: (text) => this.#onMessage(text),
      oversized: (message) => this.#onOversized(message),
      closed: () => this.#onClose(),
    });
  }

  /** Connects to a Chrome's browser-level WebSocket address (CDP_URL). */
  static async connect(wsUrl: string): Promise<CdpConnection> {
    return new CdpConnection(await WsTransport.connect(wsUrl));
  }

  /** Whether the connection has closed. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Sends a browser-level command. */
  send<M extends CommandName>(method: M, params?: CommandParams<M>, options: CommandOptions = {}): Promise<CommandResult<M>> {
    return this.rawSend({ method, params }, options) as Promise<CommandResult<M>>;
  }

  /** Sends a command on the connection or, with `sessionId`, on that session; the registry settles it. */
  rawSend(command: { method: string; params: unknown; sessionId?: string }, options: CommandOptions): Promise<unknown> {
    // Traced, a command a call sends is a child span of the call's (its name only: never its params).
    if (isTracing()) return traceChild(`cdp ${command.method}`, { "cdp.method": command.method }, () => this.#send(command, options));
    return this.#send(command, options);
  }

  #send(command: { method: string; params: unknown; sessionId?: string }, options: CommandOptions): Promise<unknown> {
    const { method, params, sessionId } = command;
    if (this.#closed) return Promise.reject(unavailable());
    if (options.signal?.aborted) return Promise.reject(options.signal.reason as Error);
    if (options.budget?.reason) return Promise.reject(options.budget.reason);
    const id = this.#nextId++;
    const registry = sessionId === undefined ? this.#callbacks : this.#sessions.get(sessionId)?.callbacks;
    if (!registry) return Promise.reject(new HubError("TARGET_CLOSED", "the tab's CDP session has closed"));
    const promise = registry.create(id, method, options);
    const message = sessionId === undefined ? { id, method, params } : { id, method, params, sessionId };
    this.#transport.send(JSON.stringify(message));
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

  /** Closes the transport; pending commands fail with BROWSER_UNAVAILABLE. */
  close(): void {
    if (this.#closed) return;
    this.#transport.close();
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
      else if (message.method) session.dispatch(message.method, message.params);
      return;
    }
    if (message.id !== undefined) this.#callbacks.settle(message.id, message.result, message.error);
    // Chrome names its events: the name and its params' type come from the same protocol.
    else if (message.method) this.emit(message.method as EventName, message.params as never);
    // Whoever held the session has had its say above; a detached session is forgotten whoever held it.
    if (message.method === "Target.detachedFromTarget") {
      const { sessionId } = message.params as { sessionId: string };
      this.dropSession(sessionId, new HubError("TARGET_CLOSED", "the tab's CDP session was detached (the tab closed or crashed)"));
    }
  }

  /** A message too large to keep fails its own command only; an event that large is dropped. */
  #onOversized(message: OversizedMessage): void {
    const { id, sessionId, method, bytes } = message;
    if (id === undefined) return void log.warn("dropped a CDP event over the size cap", { method, sessionId, bytes });
    const maxMiB = Number((this.#transport.maxMessageBytes / (1024 * 1024)).toFixed(2));
    const tooLarge = (command: string): HubError =>
      new HubError(
        "SERIALIZATION_FAILED",
        `Chrome's answer to ${command} is larger than ${maxMiB} MiB; ask for less: maxSize, a clip, a smaller scale`,
      );
    log.warn("dropped a CDP answer over the size cap", { id, sessionId, bytes });
    // Ids are unique on the connection: when the session cannot be read from the message, any registry may hold it.
    const session = sessionId === undefined ? undefined : this.#sessions.get(sessionId);
    const registries = session ? [session.callbacks] : [this.#callbacks, ...[...this.#sessions.values()].map((s) => s.callbacks)];
    for (const registry of registries) if (registry.fail(id, tooLarge)) return;
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
