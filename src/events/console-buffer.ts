import type { ConsoleMessage } from "./console-message.js";

/** What a tab logged recently: a bounded ring buffer, with the position of the last navigation. */
export class ConsoleBuffer {
  #items: (ConsoleMessage | undefined)[];
  #next = 0;
  #count = 0;
  #total = 0;
  #navigatedAt = 0;

  constructor(readonly capacity: number) {
    this.#items = new Array<ConsoleMessage | undefined>(capacity);
  }

  /** Adds a message, overwriting the oldest when full. */
  push(message: ConsoleMessage): void {
    this.#items[this.#next] = message;
    this.#next = (this.#next + 1) % this.capacity;
    this.#count = Math.min(this.#count + 1, this.capacity);
    this.#total++;
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
