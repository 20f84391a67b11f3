import WebSocket from "ws";
import { TabwireError } from "../../src/client/index.js";
import { checkNotification, checkResult } from "./wire-contract.js";

/** A JSON-RPC error answered by the hub, as tests see it. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

/** Resolves with the RpcError a call fails with; rejects (failing the test) if the call succeeds. */
export async function rpcFailure(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error("the call succeeded but should have failed");
}

/** How a test connects. */
export interface ConnectOptions {
  token?: string;
  origin?: string;
  path?: string;
}

const FRAME_TIMEOUT_MS = 15_000;

/** A bare JSON-RPC WebSocket client for tests of the wire itself: raw frames in and out, plus call(). */
export class TestRpcClient {
  readonly ws: WebSocket;
  #nextId = 1;
  #frames: unknown[] = [];
  #waiters: ((frame: unknown) => void)[] = [];
  #pending = new Map<string | number, { method: string; resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #listeners: ((method: string, params: Record<string, unknown>) => void)[] = [];

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data) => this.#onFrame(JSON.parse((data as Buffer).toString("utf8")) as unknown));
    ws.on("close", () => {
      for (const { reject } of this.#pending.values()) reject(new Error("socket closed"));
      this.#pending.clear();
    });
  }

  /** Connects to the hub's /rpc (or another path); rejects with the HTTP status when the upgrade is refused. */
  static connect(baseUrl: string, options: ConnectOptions = {}): Promise<TestRpcClient> {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const ws = new WebSocket(`${baseUrl}${options.path ?? "/rpc"}`, { headers, ...(options.origin ? { origin: options.origin } : {}) });
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new TestRpcClient(ws)));
      ws.once("unexpected-response", (_req, res) => {
        ws.terminate();
        reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode }));
      });
      ws.once("error", reject);
    });
  }

  /** Calls a method and resolves with its result, or rejects with RpcError. */
  call<T = Record<string, unknown>>(method: string, params?: object, id?: string | number): Promise<T> {
    const requestId = id ?? this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(requestId, { method, resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id: requestId, method, ...(params ? { params } : {}) }));
    });
  }

  /** Sends a raw text frame. */
  sendRaw(text: string): void {
    this.ws.send(text);
  }

  /** The next frame that is not the answer of a call() (a raw reply or a notification), with a deadline. */
  nextFrame(timeoutMs = FRAME_TIMEOUT_MS): Promise<unknown> {
    const frame = this.#frames.shift();
    if (frame !== undefined) return Promise.resolve(frame);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no frame within ${timeoutMs} ms`)), timeoutMs);
      this.#waiters.push((next) => {
        clearTimeout(timer);
        resolve(next);
      });
    });
  }

  /** Hands every later notification to `listener` instead of queueing it for nextFrame(). */
  onNotification(listener: (method: string, params: Record<string, unknown>) => void): void {
    this.#listeners.push(listener);
  }

  /** Resolves with true when no frame arrives within `ms` (used only to show that nothing is sent). */
  async expectSilence(ms: number): Promise<boolean> {
    try {
      await this.nextFrame(ms);
      return false;
    } catch {
      return true;
    }
  }

  /** Closes the socket and waits for it to close. */
  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once("close", () => resolve());
      this.ws.close();
    });
  }

  #onFrame(frame: unknown): void {
    const response = frame as { id?: string | number; result?: unknown; error?: { code: number; message: string; data?: unknown } };
    const pending = !Array.isArray(frame) && response.id !== undefined && response.id !== null ? this.#pending.get(response.id) : undefined;
    if (pending && response.id !== undefined && response.id !== null) {
      this.#pending.delete(response.id);
      if (response.error) pending.reject(new RpcError(response.error.code, response.error.message, response.error.data));
      else {
        checkResult(pending.method, response.result);
        pending.resolve(response.result);
      }
      return;
    }
    const notification = frame as { method?: string; id?: unknown; params?: Record<string, unknown> };
    if (typeof notification.method === "string" && notification.id === undefined)
      checkNotification(notification.method, notification.params);
    if (this.#listeners.length > 0 && typeof notification.method === "string" && notification.id === undefined) {
      for (const listener of this.#listeners) listener(notification.method, notification.params ?? {});
      return;
    }
    const waiter = this.#waiters.shift();
    if (waiter) waiter(frame);
    else this.#frames.push(frame);
  }
}

/** Resolves with the TabwireError a typed-client call fails with; rejects (failing the test) if the call succeeds. */
export async function failure(promise: Promise<unknown>): Promise<TabwireError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TabwireError) return error;
    throw error;
  }
  throw new Error("the call succeeded but should have failed");
}
