// What one batch holds at most (characters of frames): with JSON escaping and the signed envelope, well under the
// smallest CLUSTER_MAX_MESSAGE_BYTES (64 KiB).
const BATCH_CHARS = 24 * 1024;

/**
 * The frames a tunnelled session writes in one tick, sent as one cluster message: a replay of 2,000 notifications
 * travels as a few messages, not 2,000 signed ones, and the order is kept.
 */
export class FrameBatch {
  #send: (texts: string[]) => void;
  #texts: string[] = [];
  #chars = 0;
  #scheduled = false;

  constructor(send: (texts: string[]) => void) {
    this.#send = send;
  }

  /** Adds a frame; the batch goes at the end of this tick, or now when it is full. */
  add(text: string): void {
    this.#texts.push(text);
    this.#chars += text.length;
    if (this.#chars >= BATCH_CHARS) return this.flush();
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Sends what waits now (before a message that must come after it). */
  flush(): void {
    this.#scheduled = false;
    if (this.#texts.length === 0) return;
    const texts = this.#texts;
    this.#texts = [];
    this.#chars = 0;
    this.#send(texts);
  }
}
