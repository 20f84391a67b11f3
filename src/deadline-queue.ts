/** A deadline waiting in a DeadlineQueue; `remove` takes it out. */
export interface QueuedDeadline {
  readonly at: number;
}

interface Entry extends QueuedDeadline {
  fire: () => void;
  lane: Lane | null;
  prev: Entry | null;
  next: Entry | null;
}

/** The deadlines of one duration, oldest first: added in time order, so they end in the order they were added. */
interface Lane {
  ms: number;
  head: Entry | null;
  tail: Entry | null;
}

/**
 * Deadlines on one timer of the process, for the budget every call has: adding and removing one is a few pointer
 * moves, where a Node timer per call costs a timer object, a list insert, a native clock read and a native ref toggle
 * (together a few percent of a short call's CPU). As in Node's own timers, deadlines are kept in a lane per duration;
 * the one timer is armed for the earliest head and re-armed lazily when it fires, so a call answered long before
 * its deadline never touches it. The timer does not keep the process alive: what a deadline guards (a socket, a
 * pending command) does.
 */
export class DeadlineQueue {
  #lanes = new Map<number, Lane>();
  #timer: NodeJS.Timeout | null = null;
  #armedFor = Infinity;

  /** Calls `fire` once `ms` milliseconds from now, unless removed first. */
  add(ms: number, fire: () => void): QueuedDeadline {
    const at = performance.now() + ms;
    let lane = this.#lanes.get(ms);
    if (!lane) {
      lane = { ms, head: null, tail: null };
      this.#lanes.set(ms, lane);
    }
    const entry: Entry = { at, fire, lane, prev: lane.tail, next: null };
    if (lane.tail) lane.tail.next = entry;
    else lane.head = entry;
    lane.tail = entry;
    if (at < this.#armedFor) this.#arm(at);
    return entry;
  }

  /** Takes a deadline out before it fires; removing one that fired or was removed does nothing. */
  remove(deadline: QueuedDeadline): void {
    const entry = deadline as Entry;
    const lane = entry.lane;
    if (!lane) return;
    entry.lane = null;
    if (entry.prev) entry.prev.next = entry.next;
    else lane.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else lane.tail = entry.prev;
    entry.prev = entry.next = null;
    if (!lane.head) this.#lanes.delete(lane.ms);
  }

  /** How many deadlines wait. */
  get size(): number {
    let size = 0;
    for (const lane of this.#lanes.values()) for (let entry = lane.head; entry; entry = entry.next) size++;
    return size;
  }

  #arm(at: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#armedFor = at;
    // Node timers may fire a fraction of a millisecond early: the queue re-arms for what is left then.
    this.#timer = setTimeout(() => this.#onTimer(), Math.max(1, Math.ceil(at - performance.now())));
    this.#timer.unref();
  }

  #onTimer(): void {
    this.#timer = null;
    this.#armedFor = Infinity;
    const now = performance.now();
    const due: Entry[] = [];
    let next = Infinity;
    for (const lane of [...this.#lanes.values()]) {
      while (lane.head && lane.head.at <= now) {
        due.push(lane.head);
        this.remove(lane.head);
      }
      if (lane.head && lane.head.at < next) next = lane.head.at;
    }
    if (next < Infinity) this.#arm(next);
    for (const entry of due) entry.fire();
  }
}
