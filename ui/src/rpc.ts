// The WebSocket JSON-RPC 2.0 client: calls with a deadline, notifications by method, reconnection with backoff.

/** Where the connection stands: `connecting`, `open`, `disconnected` (a retry is scheduled) or `stopped`. */
export type ConnectionState = "connecting" | "open" | "disconnected" | "stopped";

/** A failed call: the hub's JSON-RPC error (code and message as it sent them), or a client-side deadline or disconnect. */
export class RpcError extends Error {
  readonly code: number | "TIMEOUT" | "DISCONNECTED";
  readonly data: unknown;

  constructor(code: number | "TIMEOUT" | "DISCONNECTED", message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/** How to reach the hub and what to do around the connection. */
export interface RpcOptions {
  /** The WebSocket URL, e.g. ws://host/rpc. */
  url: string;
  /** The client-side deadline of a call (default 15 s). */
  timeoutMs?: number;
  /** Called when a socket closed before it opened: false means the session is gone, and the client stops. */
  sessionAlive?: () => Promise<boolean>;
  /** Called once the client stopped because the session is gone. */
  onSignedOut?: () => void;
}

type NotificationHandler = (params: Record<string, unknown>) => void;
type StateHandler = (state: ConnectionState, retryInMs: number) => void;

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: RpcError) => void;
  timer: ReturnType<typeof setTimeout>;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 10_000;

/** A JSON-RPC 2.0 connection to the hub's /rpc that reconnects by itself until stop(). */
export class Rpc {
  private socket: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly notificationHandlers = new Map<string, Set<NotificationHandler>>();
  private readonly stateHandlers = new Set<StateHandler>();
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private currentState: ConnectionState = "connecting";

  constructor(private readonly options: RpcOptions) {}

  /** The connection's state now. */
  get state(): ConnectionState {
    return this.currentState;
  }

  /** Whether calls can be sent now. */
  get isOpen(): boolean {
    return this.currentState === "open";
  }

  /** Opens the connection (and keeps reopening it until stop()). */
  start(): void {
    this.stopped = false;
    this.connect();
  }

  /** Closes the connection for good: pending calls fail, no reconnection. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onopen = socket.onclose = socket.onmessage = socket.onerror = null;
      socket.close(1000, "signed out");
    }
    this.failAll("disconnected");
    this.setState("stopped", 0);
  }

  /**
   * Calls a method and resolves with its result; rejects with an RpcError on the hub's error, on the deadline
   * (the hub is then told to cancel the call) or when the connection closes first.
   */
  call<T = unknown>(method: string, params: object = {}, options: { timeoutMs?: number } = {}): Promise<T> {
    const socket = this.socket;
    if (!socket || this.currentState !== "open") return Promise.reject(new RpcError("DISCONNECTED", "disconnected"));
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.expire(id), timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (result: unknown) => void, reject, timer });
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** Listens to a notification method; returns the function that stops listening. */
  on<P = Record<string, unknown>>(method: string, handler: (params: P) => void): () => void {
    let handlers = this.notificationHandlers.get(method);
    if (!handlers) this.notificationHandlers.set(method, (handlers = new Set()));
    const wrapped = handler as unknown as NotificationHandler;
    handlers.add(wrapped);
    return () => handlers.delete(wrapped);
  }

  /** Listens to the connection's state (called at once with the current one); returns the function that stops listening. */
  onState(handler: StateHandler): () => void {
    this.stateHandlers.add(handler);
    handler(this.currentState, 0);
    return () => this.stateHandlers.delete(handler);
  }

  private connect(): void {
    if (this.stopped) return;
    this.setState("connecting", 0);
    const socket = new WebSocket(this.options.url);
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.failures = 0;
      this.setState("open", 0);
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.failAll("disconnected");
      void this.afterClose(opened);
    };
  }

  /** After a close: check the session when the socket never opened, then retry after 1 s, 2 s, 4 s... up to 10 s. */
  private async afterClose(opened: boolean): Promise<void> {
    if (this.stopped) return;
    const delay = Math.min(FIRST_RETRY_MS * 2 ** this.failures, MAX_RETRY_MS);
    this.failures += 1;
    this.setState("disconnected", delay);
    if (!opened && this.options.sessionAlive && !(await this.options.sessionAlive())) {
      if (this.stopped) return;
      this.stop();
      this.options.onSignedOut?.();
      return;
    }
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private receive(data: unknown): void {
    if (typeof data !== "string") return;
    let message: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
    try {
      message = JSON.parse(data);
    } catch {
      console.warn("not JSON from the hub", data.slice(0, 200));
      return;
    }
    if (typeof message.method === "string" && message.id === undefined) {
      this.dispatch(message.method, (message.params ?? {}) as Record<string, unknown>);
      return;
    }
    if (typeof message.id === "number") this.settle(message.id, message);
  }

  private dispatch(method: string, params: Record<string, unknown>): void {
    for (const handler of this.notificationHandlers.get(method) ?? []) {
      try {
        handler(params);
      } catch (error) {
        console.error(`handler of ${method} failed`, error);
      }
    }
  }

  private settle(id: number, message: { result?: unknown; error?: unknown }): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    clearTimeout(call.timer);
    if (message.error && typeof message.error === "object") {
      const { code, message: text, data } = message.error as { code?: unknown; message?: unknown; data?: unknown };
      call.reject(new RpcError(typeof code === "number" ? code : -32603, typeof text === "string" ? text : "error", data));
    } else {
      call.resolve(message.result);
    }
  }

  private expire(id: number): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    if (this.socket && this.currentState === "open") {
      this.socket.send(JSON.stringify({ jsonrpc: "2.0", method: "cancel", params: { id } }));
    }
    call.reject(new RpcError("TIMEOUT", `${call.method}: no answer in time`));
  }

  private failAll(message: string): void {
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) {
      clearTimeout(call.timer);
      call.reject(new RpcError("DISCONNECTED", message));
    }
  }

  private setState(state: ConnectionState, retryInMs: number): void {
    this.currentState = state;
    for (const handler of [...this.stateHandlers]) {
      try {
        handler(state, retryInMs);
      } catch (error) {
        console.error("connection state handler failed", error);
      }
    }
  }
}
