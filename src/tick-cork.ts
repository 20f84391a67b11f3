import type WebSocket from "ws";

/** The socket under a ws WebSocket: ws does not expose it, and corking is only possible there. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

/**
 * Sends frames so that all those sent in one tick of the event loop leave in one write: the socket is corked at
 * the first frame and uncorked on the next tick. Under load this turns a system call per frame into one per tick;
 * a lone frame still leaves in the same turn of the loop.
 */
export class TickCork {
  #ws: WebSocket;
  #corked = false;

  constructor(ws: WebSocket) {
    this.#ws = ws;
  }

  send(text: string): void {
    const socket = (this.#ws as unknown as { _socket?: Corkable })._socket;
    if (socket && !this.#corked) {
      this.#corked = true;
      socket.cork();
      process.nextTick(() => {
        this.#corked = false;
        socket.uncork();
      });
    }
    this.#ws.send(text);
  }
}
