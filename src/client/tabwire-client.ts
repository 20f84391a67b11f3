import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type * as JsonRpc from "json-rpc-2.0";
import type { JSONRPCResponse } from "json-rpc-2.0";
import type WebSocketClass from "ws";
import type { MethodName, Methods, Notifications } from "../protocol/types.js";
import { CallsInDoubt } from "./calls-in-doubt.js";
import { ResumeState, type Reconnected } from "./resume-state.js";

// ws's ES module entry imports its eight CommonJS files one by one, and Node 20 scans the source of each for its
// exports with a lexer written in JavaScript, cold at start-up: a third of the CPU of a `tabwire eval`. require()
// loads the same files without the scan (json-rpc-2.0 is CommonJS too).
const require = createRequire(import.meta.url);
const WebSocket = require("ws") as typeof WebSocketClass;
type WebSocket = WebSocketClass;
const { createJSONRPCErrorResponse, createJSONRPCRequest, JSONRPCClient } = require("json-rpc-2.0") as typeof JsonRpc;

/** An error the hub answered a call with: its code (docs/protocol.md section 8), message and data. */
export class TabwireError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "TabwireError";
  }
}

/** The connection closed (or was not open) before the call was answered. */
export class ConnectionClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConnectionClosedError";
  }
}

/**
 * The connection dropped before the call was answered and its session could not be resumed: the call may or may not
 * have run on the hub. Neither the hub nor the client runs it again; check its effect before calling it again.
 */
export class CallInDoubtError extends ConnectionClosedError {
  constructor(message: string) {
    super(message);
    this.name = "CallInDoubtError";
  }
}

/** The hub answered the connection with an HTTP refusal: 401 (token wrong or missing), 403 (not allowed), 429 (retry later). */
export class HubRefusedError extends ConnectionClosedError {
  constructor(
    message: string,
    /** The HTTP status of the refusal. */
    readonly status: number,
    /** 429: when this address may try again (the hub's failed-authentication limit). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "HubRefusedError";
  }
}

/** How to reach the hub. */
export interface TabwireClientOptions {
  /** ws://host:port or ws://host:port/rpc. */
  url: string;
  token?: string;
  /** Reconnect with backoff when the connection drops (default true), resuming the session where the hub can. */
  reconnect?: boolean;
  /** How long connecting may take (default 10 s). */
  connectTimeoutMs?: number;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborting rejects the call at once and sends the hub a cancel for it. */
  signal?: AbortSignal;
}

/** A call's params and options; the params may be left out when the method needs none (ping, tabs.list, ...). */
type ParamsOf<M extends MethodName> =
  Record<string, never> extends Methods[M]["params"]
    ? [params?: Methods[M]["params"], options?: CallOptions]
    : [params: Methods[M]["params"], options?: CallOptions];
type Listener<N extends keyof Notifications> = (params: Notifications[N]) => void;
type StateListener = () => void;
type ReconnectListener = (info: Reconnected) => void;

const CANCELLED = -32010;
const CLOSED_MESSAGE = "the connection to the hub closed before the answer";
const IN_DOUBT_MESSAGE =
  "the connection to the hub dropped before the answer and could not be resumed: the call may or may not have run; check before calling again";
// A hub closing with 1001 is going away: the sessions of its connections end with it.
const GOING_AWAY = 1001;
const BACKOFF_MIN_MS = 200;
const BACKOFF_MAX_MS = 5_000;

/** A typed JSON-RPC client of the hub: one method per hub method, notifications as events, cancel, reconnect. */
export class TabwireClient {
  #options: TabwireClientOptions;
  #ws: WebSocket;
  #nextId = 1;
  // Correlates answers with calls; it outlives reconnects, and its send writes on the socket of the moment.
  #rpc = new JSONRPCClient((payload: object) => this.#send(payload));
  #listeners = new Map<string, Set<(params: never) => void>>();
  #closing = false;
  #backoffMs = BACKOFF_MIN_MS;
  #resume = new ResumeState();
  #inDoubt = new CallsInDoubt((id) => this.#rpc.receive(createJSONRPCErrorResponse(id, 0, IN_DOUBT_MESSAGE)));

  private constructor(opened: Opened, options: TabwireClientOptions) {
    this.#options = options;
    this.#ws = opened.ws;
    this.#resume.session = opened.session;
    this.#resume.windowMs = opened.windowMs;
    this.#attach(opened.ws);
  }

  /** Connects; rejects with ConnectionClosedError when the hub cannot be reached, HubRefusedError when it refuses the connection. */
  static async connect(options: TabwireClientOptions): Promise<TabwireClient> {
    return new TabwireClient(await open(options), options);
  }

  /** The hub's id of this connection's session (resumed sessions keep theirs), or null when the hub offers none. */
  get session(): string | null {
    return this.#resume.session;
  }

  /** Calls a hub method with typed params and result. */
  call<M extends MethodName>(method: M, ...[params, options = {}]: ParamsOf<M>): Promise<Methods[M]["result"]> {
    if (this.#ws.readyState !== WebSocket.OPEN) return Promise.reject(new ConnectionClosedError("not connected to the hub"));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new TabwireError(CANCELLED, "cancelled by the caller"));
    const id = this.#nextId++;
    // Aborting settles the call with an answer of the client's own; the hub's, if it comes, is then dropped.
    const cancelled = createJSONRPCErrorResponse(id, CANCELLED, "cancelled by the caller");
    let settled = false;
    const onAbort = (): void => {
      if (settled) return;
      this.#send({ jsonrpc: "2.0", method: "cancel", params: { id } });
      this.#rpc.receive(cancelled);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#inDoubt.add(id);
    const answered = this.#rpc.requestAdvanced(createJSONRPCRequest(id, method, params));
    return Promise.resolve(answered).then((response) => {
      settled = true;
      this.#inDoubt.delete(id);
      signal?.removeEventListener("abort", onAbort);
      const result = resultOf(response) as Methods[M]["result"];
      this.#resume.track(method, params, result);
      return result;
    });
  }

  /** Runs JavaScript in a tab. */
  evaluate(params: Methods["evaluate"]["params"], options?: CallOptions): Promise<Methods["evaluate"]["result"]> {
    return this.call("evaluate", params, options);
  }

  /** Clicks an element with trusted mouse input, once it is actionable. */
  click(params: Methods["click"]["params"], options?: CallOptions): Promise<Methods["click"]["result"]> {
    return this.call("click", params, options);
  }

  /** Moves the mouse over an element. */
  hover(params: Methods["hover"]["params"], options?: CallOptions): Promise<Methods["hover"]["result"]> {
    return this.call("hover", params, options);
  }

  /** Types text, a key event per character. */
  type(params: Methods["type"]["params"], options?: CallOptions): Promise<Methods["type"]["result"]> {
    return this.call("type", params, options);
  }

  /** Presses a key or a chord (`Enter`, `Control+A`). */
  press(params: Methods["press"]["params"], options?: CallOptions): Promise<Methods["press"]["result"]> {
    return this.call("press", params, options);
  }

  /** Replaces the text of a field. */
  fill(params: Methods["fill"]["params"], options?: CallOptions): Promise<Methods["fill"]["result"]> {
    return this.call("fill", params, options);
  }

  /** Fills several fields in one call. */
  fillForm(params: Methods["fillForm"]["params"], options?: CallOptions): Promise<Methods["fillForm"]["result"]> {
    return this.call("fillForm", params, options);
  }

  /** Selects options of a `<select>` by value or label. */
  select(params: Methods["select"]["params"], options?: CallOptions): Promise<Methods["select"]["result"]> {
    return this.call("select", params, options);
  }

  /** Sets the files of a file input from bytes (base64). */
  upload(params: Methods["upload"]["params"], options?: CallOptions): Promise<Methods["upload"]["result"]> {
    return this.call("upload", params, options);
  }

  /** Drags from one element to another. */
  drag(params: Methods["drag"]["params"], options?: CallOptions): Promise<Methods["drag"]["result"]> {
    return this.call("drag", params, options);
  }

  /** Scrolls an element into view, or by wheel deltas. */
  scroll(params: Methods["scroll"]["params"], options?: CallOptions): Promise<Methods["scroll"]["result"]> {
    return this.call("scroll", params, options);
  }

  /** Waits until the page shows a text, loses one, has an element in a state, a URL or a load state. */
  waitFor(params: Methods["wait.for"]["params"], options?: CallOptions): Promise<Methods["wait.for"]["result"]> {
    return this.call("wait.for", params, options);
  }

  /** Listens to a notification; returns the disposer. */
  on<N extends keyof Notifications>(name: N, listener: Listener<N>): () => void;
  /** Listens to the connection dropping or coming back; returns the disposer. */
  on(name: "disconnected" | "reconnected", listener: StateListener): () => void;
  /** Listens to the connection coming back: whether its session was resumed, else what was lost and made again. */
  on(name: "reconnected", listener: ReconnectListener): () => void;
  on(name: string, listener: (params: never) => void): () => void {
    let listeners = this.#listeners.get(name);
    if (!listeners) this.#listeners.set(name, (listeners = new Set()));
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Closes the connection for good; pending calls reject with ConnectionClosedError. */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((resolve) => this.#ws.once("close", resolve));
    this.#ws.close(1000);
    await closed;
  }

  #attach(ws: WebSocket): void {
    ws.on("message", (data) => this.#onFrame(JSON.parse((data as Buffer).toString("utf8")) as Record<string, unknown>));
    ws.on("error", () => {});
    ws.once("close", (code) => this.#onClose(code));
  }

  #onFrame(frame: Record<string, unknown>): void {
    if (typeof frame.id === "number") this.#rpc.receive(frame as unknown as JSONRPCResponse);
    // A notification the hub sends again after a resume is handed on once.
    else if (typeof frame.method === "string" && this.#resume.accept(frame.params)) this.#emit(frame.method, frame.params);
  }

  #onClose(code: number): void {
    if (this.#closing) return void this.#rpc.rejectAllPendingRequests(CLOSED_MESSAGE);
    const reconnecting = this.#options.reconnect !== false;
    if (reconnecting && this.#resume.session !== null && code !== GOING_AWAY) this.#inDoubt.hold(this.#resume.windowMs);
    else this.#inDoubt.rejectAll();
    this.#emit("disconnected", undefined);
    if (reconnecting) this.#scheduleReconnect();
  }

  /** On a new connection: takes the old session over, else makes the subscriptions again; tells `reconnected` which. */
  async #resumeOrRedo(session: string | null, windowMs: number): Promise<void> {
    const old = this.#resume.session;
    this.#resume.windowMs = windowMs;
    let answer: Methods["session.resume"]["result"] = { resumed: false, session: session ?? "", reason: "unsupported" };
    if (old !== null && session !== null) {
      answer = await this.call("session.resume", { session: old, lastSeq: this.#resume.lastSeq }).catch(() => answer);
    }
    if (answer.resumed) {
      this.#inDoubt.settle(true);
      this.#resume.session = answer.session;
      const { replayed, answered } = answer;
      return this.#emit("reconnected", { resumed: true, replayed, answered, inDoubt: 0, resubscribed: [], failed: [] });
    }
    const inDoubt = this.#inDoubt.settle(false);
    this.#resume.restart(session);
    const redone = await this.#resume.resubscribe((method, params) => this.call(method, params as never));
    const { fromSeq, toSeq } = answer.lost ?? {};
    const missed = fromSeq !== undefined && toSeq !== undefined ? { missed: { fromSeq, toSeq } } : {};
    this.#emit("reconnected", { resumed: false, reason: answer.reason ?? "unknown", ...missed, inDoubt, ...redone });
  }

  #scheduleReconnect(): void {
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, BACKOFF_MAX_MS);
    setTimeout(() => {
      if (this.#closing) return;
      open(this.#options).then(
        ({ ws, session, windowMs }) => {
          this.#ws = ws;
          this.#backoffMs = BACKOFF_MIN_MS;
          this.#attach(ws);
          if (this.#closing) ws.close(1000);
          else void this.#resumeOrRedo(session, windowMs);
        },
        () => this.#scheduleReconnect(),
      );
    }, delay).unref();
  }

  #emit(name: string, params: unknown): void {
    for (const listener of this.#listeners.get(name) ?? []) (listener as (params: unknown) => void)(params);
  }

  #send(frame: object): void {
    this.#ws.send(JSON.stringify(frame));
  }
}

/** A call's result, or its error: the hub's as a TabwireError, the client's own end of the connection as ConnectionClosedError. */
function resultOf(response: JSONRPCResponse): unknown {
  const { error } = response;
  if (!error) return response.result;
  // The hub never answers code 0: the library's own answers have it, for the connection closing or a frame it could not send.
  if (error.code === 0) {
    if (error.message === IN_DOUBT_MESSAGE) throw new CallInDoubtError(IN_DOUBT_MESSAGE);
    throw error.message === CLOSED_MESSAGE ? new ConnectionClosedError(CLOSED_MESSAGE) : new Error(error.message);
  }
  throw new TabwireError(error.code, error.message, error.data);
}

/** An open socket and the session the hub named for it in the 101 (null: none offered). */
interface Opened {
  ws: WebSocket;
  session: string | null;
  windowMs: number;
}

function open(options: TabwireClientOptions): Promise<Opened> {
  const url = new URL(options.url);
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/rpc";
  // Every connection asks for a session it can resume; a hub that offers none names none.
  const headers: Record<string, string> = { "tabwire-resume": "on" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const ws = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: options.connectTimeoutMs ?? 10_000 });
  let session: string | null = null;
  let windowMs = 0;
  ws.once("upgrade", (response) => {
    const named = response.headers["tabwire-session"];
    session = typeof named === "string" ? named : null;
    windowMs = Number(response.headers["tabwire-resume-window-ms"]) || 0;
  });
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => {
      ws.removeAllListeners();
      ws.on("error", () => {});
      ws.terminate();
      reject(error);
    };
    ws.once("open", () => {
      ws.removeAllListeners();
      resolve({ ws, session, windowMs });
    });
    ws.once("unexpected-response", (_request, response) => {
      void refusalOf(response, url.origin).then(fail);
    });
    ws.once("error", (error) => fail(new ConnectionClosedError(`cannot connect to the hub at ${url.origin}: ${error.message}`)));
  });
}

const REFUSAL_BODY_MAX_BYTES = 4_096;
const REFUSAL_BODY_TIMEOUT_MS = 1_000;

/** The hub's refusal of an upgrade, with the reason its JSON body gives (`{"error": {message, data: {retryAfterMs}}}`). */
async function refusalOf(response: IncomingMessage, origin: string): Promise<HubRefusedError> {
  const status = response.statusCode ?? 0;
  const body = await new Promise<string>((resolve) => {
    let text = "";
    const done = (): void => {
      clearTimeout(timer);
      response.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, REFUSAL_BODY_TIMEOUT_MS);
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      text += chunk;
      if (text.length > REFUSAL_BODY_MAX_BYTES) done();
    });
    response.once("end", done);
    response.once("error", done);
  });
  let error: { message?: unknown; data?: { retryAfterMs?: unknown } } | undefined;
  try {
    error = (JSON.parse(body) as { error?: typeof error }).error;
  } catch {
    // Not the hub's JSON (a proxy's page, say): the status alone says why.
  }
  const why = typeof error?.message === "string" ? `: ${error.message}` : "";
  const header = Number(response.headers["retry-after"]);
  const retryAfterMs =
    typeof error?.data?.retryAfterMs === "number" ? error.data.retryAfterMs : Number.isFinite(header) ? header * 1000 : undefined;
  return new HubRefusedError(`the hub at ${origin} refused the connection: HTTP ${status}${why}`, status, retryAfterMs);
}
