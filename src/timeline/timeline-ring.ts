import type { TimelineEntry } from "../protocol/types.js";

/** What one tab's timeline may hold: entries, bytes (pictures included) and age; the oldest go first. */
export interface TimelineBounds {
  maxEntries: number;
  maxBytes: number;
  maxAgeMs: number;
}

/**
 * An entry before the ring numbers it: `push` sets its seq (written 0 first, so that the field leads in every entry's
 * JSON). Fields left undefined are left out of the answers (JSON), and keep the call entries of one shape.
 */
export type NewEntry = TimelineEntry;

// What an entry costs besides its texts and pictures: the object, its numbers, the caller object.
const ENTRY_OVERHEAD_BYTES = 160;
// The array's dropped front is given back once it is this long and half the array.
const COMPACT_AT = 1_024;

/** Roughly what an entry holds in memory: its texts as UTF-16, its pictures' base64 (one byte a character). */
export function entryBytes(entry: NewEntry): number {
  let chars = entry.summary.length + (entry.url?.length ?? 0) + (entry.method?.length ?? 0) + (entry.caller?.who.length ?? 0);
  chars += entry.outcome?.length ?? 0;
  const pictures = (entry.before?.data.length ?? 0) + (entry.after?.data.length ?? 0);
  return ENTRY_OVERHEAD_BYTES + 2 * chars + pictures;
}

/**
 * One tab's timeline: entries numbered from 1 without gaps, bounded in count, bytes and age (the oldest go first,
 * the newest is always kept), read after a sequence number.
 */
export class TimelineRing {
  #bounds: TimelineBounds;
  // Dropped entries are unset at once (a page's worth of pictures must not wait for the next compaction).
  #items: (TimelineEntry | undefined)[] = [];
  #sizes: number[] = [];
  #head = 0;
  #bytes = 0;
  #lastSeq = 0;

  constructor(bounds: TimelineBounds) {
    this.#bounds = bounds;
  }

  /** How many entries it holds. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Roughly the bytes its entries hold. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The seq of the newest entry (0 before the first). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Numbers and keeps an entry, letting the oldest go past any bound; answers it. */
  push(entry: NewEntry, now = Date.now()): TimelineEntry {
    const numbered = entry;
    numbered.seq = ++this.#lastSeq;
    const size = entryBytes(entry);
    this.#items.push(numbered);
    this.#sizes.push(size);
    this.#bytes += size;
    const { maxEntries, maxBytes } = this.#bounds;
    while (this.size > maxEntries || (this.#bytes > maxBytes && this.size > 1)) this.#dropOldest();
    this.#dropExpired(now);
    return numbered;
  }

  /** The entries after `since`, oldest first: at most `limit`, and while they fit in `maxBytes` (the first always does). */
  after(since: number, limit: number, { maxBytes = Infinity, now = Date.now() } = {}): TimelineEntry[] {
    this.#dropExpired(now);
    const first = this.#items[this.#head]?.seq ?? this.#lastSeq + 1;
    const out: TimelineEntry[] = [];
    let bytes = 0;
    for (let index = this.#head + Math.max(0, since + 1 - first); index < this.#items.length && out.length < limit; index++) {
      bytes += this.#sizes[index] ?? 0;
      if (out.length > 0 && bytes > maxBytes) break;
      const entry = this.#items[index];
      if (entry) out.push(entry);
    }
    return out;
  }

  // The front's `at` decides: a call's entry carries its start, so a later entry may be a little older; it goes soon after.
  #dropExpired(now: number): void {
    const oldest = now - this.#bounds.maxAgeMs;
    while (this.size > 1 && (this.#items[this.#head]?.at ?? Infinity) < oldest) this.#dropOldest();
  }

  #dropOldest(): void {
    this.#bytes -= this.#sizes[this.#head] ?? 0;
    this.#items[this.#head] = undefined;
    this.#head++;
    if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#sizes = this.#sizes.slice(this.#head);
      this.#head = 0;
    }
  }
}
