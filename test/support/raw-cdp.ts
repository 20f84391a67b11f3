import WebSocket from "ws";

/** A raw CDP connection to /cdp: one command at a time, its answer or its error. */
export class RawCdp {
  #ws: WebSocket;
  #next = 1;
  #waiting = new Map<number, (message: Record<string, unknown>) => void>();
  readonly events: Record<string, unknown>[] = [];
  #eventWaiters = new Set<(event: Record<string, unknown>) => void>();

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      if (typeof message.id === "number") this.#waiting.get(message.id)?.(message);
      else {
        this.events.push(message);
        for (const waiter of this.#eventWaiters) waiter(message);
      }
    });
  }

  static open(url: string, token: string): Promise<RawCdp> {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new RawCdp(ws)));
      ws.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
      ws.once("error", reject);
    });
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /** Sends a frame as it is, and waits for the answer to `id`. */
  sendRaw(text: string, id: number): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#ws.send(text);
    });
  }

  /** The first event (already received or to come) that `matches`, within `timeoutMs`. */
  event(matches: (event: Record<string, unknown>) => boolean, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    const seen = this.events.find(matches);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#eventWaiters.delete(waiter);
        reject(new Error(`no such CDP event within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (event: Record<string, unknown>): void => {
        if (!matches(event)) return;
        clearTimeout(timer);
        this.#eventWaiters.delete(waiter);
        resolve(event);
      };
      this.#eventWaiters.add(waiter);
    });
  }

  get isOpen(): boolean {
    return this.#ws.readyState === WebSocket.OPEN;
  }

  close(): void {
    this.#ws.close();
  }
}
