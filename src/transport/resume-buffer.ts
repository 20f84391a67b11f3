import type { JsonRpcId } from "../rpc/envelope.js";

/** How much one session keeps for a resume: notifications by count and bytes, answers in the same bytes. */
export interface ReplayLimits {
  maxMessages: number;
  /** Counted as characters of the JSON text: what the strings hold, about a byte each for the hub's ASCII frames. */
  maxBytes: number;
}

/** The notifications a session sent, the newest `maxMessages` within `maxBytes`, and the answers it owes while away. */
export class ReplayBuffer {
  #limits: ReplayLimits;
  #texts: string[] = [];
  #head = 0;
  // The seq of #texts[#head]; the newest kept is #firstSeq + size - 1.
  #firstSeq = 1;
  #bytes = 0;
  #owed: string[] = [];
  #lostCalls: JsonRpcId[] = [];

  constructor(limits: ReplayLimits) {
    this.#limits = limits;
  }

  /** The seq of the oldest notification kept (one past the newest when none is). */
  get firstSeq(): number {
    return this.#firstSeq;
  }

  /** Keeps notification `seq` (one more than the last one kept), dropping the oldest past the limits. */
  push(seq: number, text: string): void {
    if (this.#size() === 0) this.#firstSeq = seq;
    this.#texts.push(text);
    this.#bytes += text.length;
    while (this.#size() > this.#limits.maxMessages || (this.#bytes > this.#limits.maxBytes && this.#size() > 0)) this.#dropOldest();
  }

  /** Whether the notifications after `lastSeq` are all still kept. */
  keepsAfter(lastSeq: number): boolean {
    return lastSeq + 1 >= this.#firstSeq;
  }

  /** The notifications after `lastSeq`, oldest first; null when some of them were dropped already. */
  after(lastSeq: number): string[] | null {
    if (!this.keepsAfter(lastSeq)) return null;
    return this.#texts.slice(this.#head + Math.max(0, lastSeq + 1 - this.#firstSeq));
  }

  /**
   * Keeps an answer for the caller's return, before old notifications (most were read before the drop; a resume that
   * needed one is told it overflowed); one that does not fit even so is dropped and its ids remembered as lost.
   */
  owe(text: string): void {
    while (this.#bytes + text.length > this.#limits.maxBytes && this.#size() > 0) this.#dropOldest();
    if (this.#bytes + text.length <= this.#limits.maxBytes) {
      this.#owed.push(text);
      this.#bytes += text.length;
      return;
    }
    this.#lostCalls.push(...idsOf(text));
  }

  /** Hands over the answers owed (and forgets them). */
  takeOwed(): string[] {
    const owed = this.#owed;
    this.#owed = [];
    for (const text of owed) this.#bytes -= text.length;
    return owed;
  }

  /** The ids of every call whose answer is owed or was dropped: what a failed resume loses. */
  lostCalls(): JsonRpcId[] {
    return [...this.#lostCalls, ...this.#owed.flatMap(idsOf)];
  }

  #size(): number {
    return this.#texts.length - this.#head;
  }

  #dropOldest(): void {
    const text = this.#texts[this.#head];
    if (text === undefined) return;
    this.#texts[this.#head] = "";
    this.#head++;
    this.#firstSeq++;
    this.#bytes -= text.length;
    // Compacts now and then rather than shift() each time: a shift copies the whole array.
    if (this.#head > 1024 && this.#head * 2 > this.#texts.length) {
      this.#texts = this.#texts.slice(this.#head);
      this.#head = 0;
    }
  }
}

/** The ids of an answer frame or a batch of them. */
function idsOf(text: string): JsonRpcId[] {
  try {
    const value = JSON.parse(text) as unknown;
    const frames = (Array.isArray(value) ? value : [value]) as { id?: JsonRpcId }[];
    return frames.map((frame) => frame.id ?? null).filter((id) => id !== null);
  } catch {
    return [];
  }
}
