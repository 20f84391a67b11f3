import type WebSocket from "ws";

/** Pings every tracked socket each interval and terminates one that did not answer the previous ping. */
export class Heartbeat {
  #alive = new Map<WebSocket, boolean>();
  #timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.#timer = setInterval(() => this.#tick(), intervalMs);
    this.#timer.unref();
  }

  /** Starts watching a socket until it closes. */
  track(ws: WebSocket): void {
    this.#alive.set(ws, true);
    ws.on("pong", () => this.#alive.set(ws, true));
    ws.on("close", () => this.#alive.delete(ws));
  }

  /** Stops pinging. */
  stop(): void {
    clearInterval(this.#timer);
  }

  #tick(): void {
    for (const [ws, alive] of this.#alive) {
      if (!alive) {
        ws.terminate();
        this.#alive.delete(ws);
        continue;
      }
      this.#alive.set(ws, false);
      ws.ping();
    }
  }
}
