import { messageBytes, type ConsoleMessage } from "./console-message.js";

/**
 * What a tab logged recently: a ring buffer bounded in messages and in bytes (the oldest go first; the newest
 * message is always kept), with the position of the last navigation.
 */
export class ConsoleBuffer {
  #items: (ConsoleMessage | undefined)[];
  #sizes: number[];
  #next = 0;
  #count = 0;
  #total = 0;
  #bytes = 0;
  #navigatedAt = 0;

  constructor(
    readonly capacity: number,
    readonly maxBytes = Infinity,
  ) {
    this.#items = new Array<ConsoleMessage | undefined>(capacity);
    this.#sizes = new Array<number>(capacity).fill(0);
  }

  /** Adds a message, dropping the oldest while over the message or byte bound. */
  push(message: ConsoleMessage): void {
    if (this.#count === this.capacity) this.#dropOldest();
    const size = messageBytes(message);
    this.#items[this.#next] = message;
    this.#sizes[this.#next] = size;
    this.#bytes += size;
    this.#next = (this.#next + 1) % this.capacity;
    this.#count++;
    this.#total++;
    while (this.#bytes > this.maxBytes && this.#count > 1) this.#dropOldest();
  }

  /** Roughly the bytes the buffered messages hold. */
  get bytes(): number {
    return this.#bytes;
  }

  #dropOldest(): void {
    const oldest = (this.#next - this.#count + this.capacity) % this.capacity;
    this.#bytes -= this.#sizes[oldest] ?? 0;
    this.#items[oldest] = undefined;
    this.#sizes[oldest] = 0;
    this.#count--;
  }

  /** Marks a navigation: later `sinceNavigation` reads start here. */
  markNavigation(): void {
    this.#navigatedAt = this.#total;
  }

  /** The timestamp of the newest message, or -Infinity. */
  get newestTimestamp(): number {
    return this.#count === 0 ? -Infinity : (this.#items[(this.#next - 1 + this.capacity) % this.capacity]?.timestamp ?? -Infinity);
  }

  /** The newest `limit` messages in page order, optionally only those since the last navigation. */
  recent(limit: number, sinceNavigation: boolean): ConsoleMessage[] {
    const available = sinceNavigation ? Math.min(this.#count, this.#total - this.#navigatedAt) : this.#count;
    const take = Math.min(limit, available);
    const out: ConsoleMessage[] = [];
    for (let i = take; i > 0; i--) {
      const item = this.#items[(this.#next - i + this.capacity) % this.capacity];
      if (item) out.push(item);
    }
    return out;
  }
}
