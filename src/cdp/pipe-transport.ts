import type { Readable, Writable } from "node:stream";
import { log } from "../log.js";
import { PipeReader } from "./pipe-reader.js";
import { CDP_MESSAGE_MAX_BYTES, type CdpTransport, type TransportListener } from "./transport.js";

/** The two ends of Chrome's --remote-debugging-pipe, as the hub sees them. */
export interface ChromePipe {
  /** Chrome's fd 3: the hub writes its commands here. */
  toChrome: Writable;
  /** Chrome's fd 4: Chrome writes its answers and events here. */
  fromChrome: Readable;
}

/** Options of a PipeTransport. */
export interface PipeTransportOptions {
  /** The most bytes one message from Chrome may have; CDP_MESSAGE_MAX_BYTES unless a test lowers it. */
  maxMessageBytes?: number;
}

/** CDP over the embedded Chrome's pipe: JSON messages ended by a NUL byte, no port for anyone else to reach. */
export class PipeTransport implements CdpTransport {
  readonly description = "the embedded Chrome's DevTools pipe";
  readonly maxMessageBytes: number;
  #pipe: ChromePipe;
  #listener: TransportListener | null = null;
  #corked = false;
  #closed = false;

  constructor(pipe: ChromePipe, options: PipeTransportOptions = {}) {
    this.#pipe = pipe;
    this.maxMessageBytes = options.maxMessageBytes ?? CDP_MESSAGE_MAX_BYTES;
    // Without a listener, the EPIPE of a write to a Chrome that just died would end the hub's process.
    pipe.toChrome.on("error", (error) => this.#onError(error));
    pipe.fromChrome.on("error", (error) => this.#onError(error));
    pipe.fromChrome.once("close", () => this.#onClosed());
  }

  listen(listener: TransportListener): void {
    this.#listener = listener;
    if (this.#closed) return listener.closed();
    const reader = new PipeReader(this.maxMessageBytes, listener);
    this.#pipe.fromChrome.on("data", (chunk: Buffer) => reader.push(chunk));
  }

  /**
   * Writes one message; the pipe is corked at the first message of a tick and uncorked on the next, so that
   * the messages of one tick leave in one write (as TickCork does for a WebSocket).
   */
  send(text: string): void {
    if (this.#closed) return;
    const out = this.#pipe.toChrome;
    if (!this.#corked) {
      this.#corked = true;
      out.cork();
      process.nextTick(() => {
        this.#corked = false;
        out.uncork();
      });
    }
    out.write(`${text}\0`);
  }

  /** Closes both ends; the embedded Chrome exits when it reads the end of its pipe. */
  close(): void {
    this.#pipe.toChrome.destroy();
    this.#pipe.fromChrome.destroy();
    this.#onClosed();
  }

  #onError(error: Error & { code?: string }): void {
    // EPIPE and ECONNRESET only say that Chrome has gone, which its exit reports better.
    if (!this.#closed && error.code !== "EPIPE" && error.code !== "ECONNRESET")
      log.warn("the DevTools pipe to Chrome failed", { error: error.message });
    this.close();
  }

  #onClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listener?.closed();
  }
}
