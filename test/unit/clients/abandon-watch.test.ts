import { expect } from "chai";
import { AbandonWatch, type WatchClock } from "../../../src/clients/abandon-watch.js";

const ABANDON_MS = 60_000;

/** A clock the test moves by hand, whose ticks run when it passes them. */
class ManualClock implements WatchClock {
  at = 1_000_000;
  #ticks: { everyMs: number; next: number; tick: () => void }[] = [];

  now(): number {
    return this.at;
  }

  every(everyMs: number, tick: () => void): () => void {
    const entry = { everyMs, next: this.at + everyMs, tick };
    this.#ticks.push(entry);
    return () => (this.#ticks = this.#ticks.filter((each) => each !== entry));
  }

  /** Moves the time on by `ms`, running each tick it passes at its own time. */
  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      const due = this.#ticks.filter((entry) => entry.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.at = due.next;
      due.next += due.everyMs;
      due.tick();
    }
    this.at = end;
  }

  get running(): number {
    return this.#ticks.length;
  }
}

/** A watch over clients the test holds, in use or not, recording the ones it abandoned. */
function watched(abandonMs = ABANDON_MS): {
  watch: AbandonWatch;
  clock: ManualClock;
  holding: Set<string>;
  inUse: Set<string>;
  abandoned: string[];
} {
  const clock = new ManualClock();
  const holding = new Set<string>();
  const inUse = new Set<string>();
  const abandoned: string[] = [];
  const watch = new AbandonWatch({
    abandonMs,
    clients: () => holding,
    isInUse: (clientId) => inUse.has(clientId),
    abandon: async (clientId) => {
      abandoned.push(clientId);
      holding.delete(clientId);
    },
    clock,
  });
  watch.start();
  return { watch, clock, holding, inUse, abandoned };
}

describe("AbandonWatch: a client nothing uses for CLIENT_ABANDON_MS is abandoned, one in use never (injected time)", () => {
  it("abandons an unused client once CLIENT_ABANDON_MS has passed, and not before", () => {
    const { clock, holding, abandoned } = watched();
    holding.add("alpha");
    clock.advance(ABANDON_MS - 1);
    expect(abandoned).to.deep.equal([]);
    // Seen first at the first tick (a quarter in), so it goes at most a quarter past CLIENT_ABANDON_MS.
    clock.advance(ABANDON_MS / 2);
    expect(abandoned).to.deep.equal(["alpha"]);
  });

  it("never abandons a client while it is in use, and counts its time from when it stopped being used", () => {
    const { watch, clock, holding, inUse, abandoned } = watched();
    holding.add("alpha");
    inUse.add("alpha");
    clock.advance(ABANDON_MS * 10);
    expect(abandoned).to.deep.equal([]);
    inUse.delete("alpha");
    watch.released("alpha");
    clock.advance(ABANDON_MS - 1);
    expect(abandoned).to.deep.equal([]);
    clock.advance(watch.tickMs + 1);
    expect(abandoned).to.deep.equal(["alpha"]);
  });

  it("abandons each client on its own time: a client released later goes later", () => {
    const { watch, clock, holding, abandoned } = watched();
    holding.add("early");
    watch.check();
    clock.advance(ABANDON_MS / 2);
    holding.add("late");
    watch.released("late");
    clock.advance(ABANDON_MS / 2 + watch.tickMs);
    expect(abandoned).to.deep.equal(["early"]);
    clock.advance(ABANDON_MS / 2);
    expect(abandoned).to.deep.equal(["early", "late"]);
  });

  it("forgets a client that holds nothing any more: one that comes back later starts afresh", () => {
    const { clock, holding, abandoned } = watched();
    holding.add("alpha");
    clock.advance(ABANDON_MS / 2);
    holding.delete("alpha");
    clock.advance(ABANDON_MS);
    holding.add("alpha");
    clock.advance(ABANDON_MS / 2);
    expect(abandoned).to.deep.equal([]);
  });

  it("looks every quarter of CLIENT_ABANDON_MS, a minute at most; with 0 it never looks; stop() stops it", () => {
    expect(watched(400).watch.tickMs).to.equal(100);
    expect(watched(3_600_000).watch.tickMs).to.equal(60_000);
    const never = watched(0);
    never.holding.add("alpha");
    never.clock.advance(365 * 24 * 3_600_000);
    expect(never.abandoned).to.deep.equal([]);
    expect(never.clock.running).to.equal(0);
    const stopped = watched();
    stopped.watch.stop();
    expect(stopped.clock.running).to.equal(0);
  });
});
