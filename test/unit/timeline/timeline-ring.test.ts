import { expect } from "chai";
import { entryBytes, TimelineRing, type NewEntry } from "../../../src/timeline/timeline-ring.js";

const BOUNDS = { maxEntries: 1_000, maxBytes: 1024 * 1024, maxAgeMs: 60_000 };

function entry(summary: string, at = 1_000): NewEntry {
  return { seq: 0, at, kind: "console", summary };
}

describe("TimelineRing", () => {
  it("numbers entries from 1 in order and reads those after a seq, at most limit", () => {
    const ring = new TimelineRing(BOUNDS);
    for (let i = 0; i < 5; i++) ring.push(entry(`m${i}`), 1_000);
    expect(ring.after(0, 10, { now: 1_000 }).map((e) => [e.seq, e.summary])).to.deep.equal([
      [1, "m0"],
      [2, "m1"],
      [3, "m2"],
      [4, "m3"],
      [5, "m4"],
    ]);
    expect(ring.after(3, 10, { now: 1_000 }).map((e) => e.seq)).to.deep.equal([4, 5]);
    expect(ring.after(1, 2, { now: 1_000 }).map((e) => e.seq)).to.deep.equal([2, 3]);
    expect(ring.after(5, 10, { now: 1_000 })).to.deep.equal([]);
  });

  it("keeps the newest maxEntries; a reader's since before the oldest starts at the oldest kept", () => {
    const ring = new TimelineRing({ ...BOUNDS, maxEntries: 3 });
    for (let i = 0; i < 20_000; i++) ring.push(entry(`m${i}`), 1_000);
    expect(ring.size).to.equal(3);
    expect(ring.lastSeq).to.equal(20_000);
    expect(ring.after(0, 10, { now: 1_000 }).map((e) => e.seq)).to.deep.equal([19_998, 19_999, 20_000]);
  });

  it("stays within maxBytes, pictures counted, and always keeps the newest entry", () => {
    const one = entryBytes(entry("x".repeat(1_000)));
    const ring = new TimelineRing({ ...BOUNDS, maxBytes: one * 4 });
    for (let i = 0; i < 100; i++) ring.push(entry(`${i}`.padEnd(1_000, "x")), 1_000);
    expect(ring.size).to.equal(4);
    expect(ring.bytes).to.be.at.most(one * 4);
    const huge: NewEntry = { ...entry("action"), before: { data: "A".repeat(one * 10), width: 1, height: 1 } };
    ring.push(huge, 1_000);
    expect(ring.after(0, 10, { now: 1_000 }).map((e) => e.summary)).to.deep.equal(["action"]);
  });

  it("lets entries older than maxAgeMs go, the newest kept", () => {
    const ring = new TimelineRing({ ...BOUNDS, maxAgeMs: 1_000 });
    ring.push(entry("old", 0), 0);
    ring.push(entry("new", 1_500), 1_500);
    expect(ring.after(0, 10, { now: 1_500 }).map((e) => e.summary)).to.deep.equal(["new"]);
    expect(ring.after(0, 10, { now: 10_000 }).map((e) => e.summary)).to.deep.equal(["new"]);
  });

  it("reads while the page fits in maxBytes (the first entry always), so a caller pages with next", () => {
    const ring = new TimelineRing(BOUNDS);
    for (let i = 0; i < 10; i++) ring.push(entry("y".repeat(1_000)), 1_000);
    const one = entryBytes(entry("y".repeat(1_000)));
    expect(ring.after(0, 10, { maxBytes: one * 3, now: 1_000 })).to.have.length(3);
    expect(ring.after(0, 10, { maxBytes: 1, now: 1_000 })).to.have.length(1);
  });
});
