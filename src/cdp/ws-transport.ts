import WebSocket from "ws";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import { TickCork } from "../tick-cork.js";
import { CDP_MESSAGE_MAX_BYTES, type CdpTransport, type TransportListener } from "./transport.js";

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * CDP over a WebSocket, for a Chrome the user runs (CDP_URL). ws cannot let go of a frame's bytes as they come,
 * so a message past the cap closes the socket (1009) and the hub reconnects: the cap is the same as the pipe's.
 */
export class WsTransport implements CdpTransport {
  readonly description: string;
  readonly maxMessageBytes = CDP_MESSAGE_MAX_BYTES;
  #ws: WebSocket;
  #out: TickCork;
  #listener: TransportListener | null = null;
  #closed = false;

  private constructor(ws: WebSocket, description: string) {
    this.#ws = ws;
    this.#out = new TickCork(ws);
    this.description = description;
    ws.on("close", () => this.#onClose());
    ws.on("error", (error) => this.#onError(error));
  }

  /** Opens the browser-level socket; sends no Origin, as Chrome refuses unknown ones. */
  static connect(wsUrl: string, timeoutMs = CONNECT_TIMEOUT_MS): Promise<WsTransport> {
    return new Promise((resolve, reject) => {
      // Chrome's frames are not checked for valid UTF-8 (JSON.parse reads them anyway): the peers' frames are.
      const ws = new WebSocket(wsUrl, {
        perMessageDeflate: false,
        skipUTF8Validation: true,
        maxPayload: CDP_MESSAGE_MAX_BYTES,
        handshakeTimeout: timeoutMs,
      });
      const fail = (error: Error): void => {
        ws.removeAllListeners();
        ws.on("error", () => {});
        ws.terminate();
        reject(new HubError("BROWSER_UNAVAILABLE", `cannot connect to Chrome at ${wsUrl}: ${error.message}`));
      };
      ws.once("error", fail);
      ws.once("open", () => {
        ws.off("error", fail);
        resolve(new WsTransport(ws, `Chrome at ${wsUrl}`));
      });
    });
  }

  listen(listener: TransportListener): void {
    this.#listener = listener;
    if (this.#closed) return listener.closed();
    this.#ws.on("message", (data) => listener.message(data.toString()));
  }

  send(text: string): void {
    if (!this.#closed) this.#out.send(text);
  }

  close(): void {
    this.#ws.close();
    this.#onClose();
  }

  #onError(error: Error & { code?: string }): void {
    if (error.code !== "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") return void log.warn("cdp socket error", { error: error.message });
    // ws closes the socket (1009) after such a frame: every tab's session is lost and the hub reconnects.
    log.error("Chrome sent a CDP message over the cap, and the socket to it closed; the hub reconnects", {
      maxMessageBytes: this.maxMessageBytes,
    });
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listener?.closed();
  }
}
