import type WebSocket from "ws";
import { log } from "../log.js";

/**
 * What a /cdp connection sends its caller: answers and events, as JSON; a caller that stops reading (its pages'
 * events piling up in the hub) is disconnected after SLOW_READER_TIMEOUT_MS above SEND_HIGH_WATER_BYTES.
 */
export class CdpOutbox {
  #ws: WebSocket;
  #limits: { highWaterBytes: number; slowReaderTimeoutMs: number; clientId: string };
  #overSince: number | null = null;
  #closed = false;

  constructor(ws: WebSocket, limits: { highWaterBytes: number; slowReaderTimeoutMs: number; clientId: string }) {
    this.#ws = ws;
    this.#limits = limits;
  }

  /** Sends a message, unless the connection is closing. */
  send(message: object): void {
    if (this.#closed || this.#ws.readyState !== this.#ws.OPEN) return;
    this.#ws.send(JSON.stringify(message));
    this.#watchReader();
  }

  /** Sends nothing more (the connection ends). */
  close(): void {
    this.#closed = true;
  }

  #watchReader(): void {
    if (this.#ws.bufferedAmount <= this.#limits.highWaterBytes) {
      this.#overSince = null;
      return;
    }
    const now = Date.now();
    this.#overSince ??= now;
    if (now - this.#overSince > this.#limits.slowReaderTimeoutMs) {
      log.warn("closing a /cdp connection that stopped reading", {
        clientId: this.#limits.clientId,
        bufferedBytes: this.#ws.bufferedAmount,
      });
      this.#ws.terminate();
    }
  }
}
