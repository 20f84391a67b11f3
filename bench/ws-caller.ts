import WebSocket from "ws";

/** A minimal sequential/pipelined JSON caller over one WebSocket, the same for the hub and for raw CDP. */
export class WsCaller {
  #ws: WebSocket;
  #nextId = 1;
  #pending = new Map<number, (message: Record<string, unknown>) => void>();
  #listeners = new Set<(message: Record<string, unknown>) => void>();

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on("message", (data) => {
      const message = JSON.parse((data as Buffer).toString("utf8")) as Record<string, unknown>;
      const resolve = typeof message.id === "number" ? this.#pending.get(message.id) : undefined;
      if (!resolve) {
        for (const listener of this.#listeners) listener(message);
        return;
      }
      this.#pending.delete(message.id as number);
      resolve(message);
    });
  }

  /** Opens a socket (no Origin, as Chrome wants). */
  static open(url: string): Promise<WsCaller> {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new WsCaller(ws)));
      ws.once("error", reject);
    });
  }

  /** Sends `frame` plus a fresh numeric id and resolves with the answer carrying that id. */
  send(frame: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(frame).slice(0, 80)} within 30 s`)), 30_000);
      this.#pending.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      this.#ws.send(JSON.stringify({ ...frame, id }));
    });
  }

  /** Hands every frame that is not an answer (events, notifications) to `listener`; returns the disposer. */
  onEvent(listener: (message: Record<string, unknown>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes the socket and resolves once the closing handshake is over (or the socket was never open). */
  close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.#ws.once("close", () => resolve()));
    this.#ws.close();
    return closed;
  }
}
