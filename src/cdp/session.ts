import { EventEmitter } from "node:events";
import { HubError } from "../errors.js";
import { CallbackRegistry, type CommandOptions } from "./callback-registry.js";
import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.js";
import type { CdpConnection, CommandName, CommandParams, CommandResult, EventName, EventParams } from "./connection.js";

/** The events of a tab's session: every CDP event of its page, and its close. */
export type SessionEvents = ProtocolMapping.Events & { closed: [error: HubError] };

/** One flattened CDP session on a tab, sharing the browser-level socket. */
export class CdpSession extends EventEmitter<SessionEvents> {
  readonly id: string;
  readonly targetId: string;
  readonly callbacks = new CallbackRegistry();
  /** Sees every event of the session before its listeners (a /cdp connection relays them as they come). */
  tap: ((method: string, params: unknown) => void) | null = null;
  #connection: CdpConnection;
  #closedBy: HubError | null = null;

  constructor(connection: CdpConnection, id: string, targetId: string) {
    super();
    this.setMaxListeners(0);
    this.#connection = connection;
    this.id = id;
    this.targetId = targetId;
  }

  /** Sends a command on this session; it fails with TARGET_CLOSED once the session is gone. */
  send<M extends CommandName>(method: M, params?: CommandParams<M>, options: CommandOptions = {}): Promise<CommandResult<M>> {
    if (this.#closedBy) return Promise.reject(this.#closedBy);
    return this.#connection.rawSend({ method, params, sessionId: this.id }, options) as Promise<CommandResult<M>>;
  }

  /** Subscribes to a typed CDP event of this session and returns the disposer. */
  listen<E extends EventName>(event: E, listener: (params: EventParams<E>) => void): () => void {
    // The event's name and its params' type come from the same protocol mapping; TypeScript cannot follow a generic one.
    const each = listener as never;
    this.on(event, each);
    return () => this.off(event, each);
  }

  /** Hands one of Chrome's events on this session to its listeners. */
  dispatch(method: string, params: unknown): void {
    this.tap?.(method, params);
    // Chrome names its events: the name and its params' type come from the same protocol.
    this.emit(method as EventName, params as never);
  }

  /** Whether the session is gone (tab closed, crashed, detached, or browser lost). */
  get isClosed(): boolean {
    return this.#closedBy !== null;
  }

  /** The error later commands fail with, once closed. */
  get closedBy(): HubError | null {
    return this.#closedBy;
  }

  /** Marks the session closed, fails its pending commands and tells listeners. */
  markClosed(error: HubError): void {
    if (this.#closedBy) return;
    this.#closedBy = error;
    this.callbacks.rejectAll(() => error);
    this.emit("closed", error);
    this.removeAllListeners();
  }
}
