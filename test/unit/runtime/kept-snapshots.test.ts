import { expect } from "chai";
import { ErrorCode } from "../../../src/errors.js";
import { KEPT_SNAPSHOT_CHARS, KEPT_SNAPSHOTS, KeptSnapshots, type KeptSnapshot } from "../../../src/runtime/kept-snapshots.js";

/** A snapshot of `lineCount` lines of `lineChars` characters each. */
function snapshot(snapshotId: string, lineCount = 1, lineChars = 10): KeptSnapshot {
  const line = "x".repeat(lineChars);
  const lines = Array.from({ length: lineCount }, () => ({ node: null, depth: 0, bare: line, text: line }));
  return {
    snapshotId,
    lines,
    text: lines.map((each) => each.text).join("\n"),
    url: "about:blank",
    title: "",
    rootNode: { ref: "e1", role: "RootWebArea", name: "" },
    shape: { source: "chrome", interestingOnly: true, interactiveOnly: false, compact: false },
  };
}

const codeOf = (run: () => unknown): number | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: number }).code;
  }
};

describe("runtime/kept-snapshots KeptSnapshots", () => {
  it("keeps the last KEPT_SNAPSHOTS snapshots; an older one is INVALID_PARAMS naming the param", () => {
    const kept = new KeptSnapshots();
    for (let at = 0; at <= KEPT_SNAPSHOTS; at++) kept.add(snapshot(`s${at}`));
    expect(kept.get(`s${KEPT_SNAPSHOTS}`, "diff").snapshotId).to.equal(`s${KEPT_SNAPSHOTS}`);
    expect(kept.get("s1", "cursor").snapshotId).to.equal("s1");
    expect(codeOf(() => kept.get("s0", "diff"))).to.equal(ErrorCode.INVALID_PARAMS);
    expect(() => kept.get("s0", "cursor")).to.throw(/cursor's snapshot/);
  });

  it("holds at most KEPT_SNAPSHOT_CHARS of text and lines together, but always the latest, however large", () => {
    const kept = new KeptSnapshots();
    // Each holds about a third of the bound in its lines (text, bare text, text again): two fit, a third does not.
    const lineCount = Math.ceil(KEPT_SNAPSHOT_CHARS / 3 / (3 * 100 + 40));
    for (const id of ["a", "b", "c"]) kept.add(snapshot(id, lineCount, 100));
    expect(codeOf(() => kept.get("a", "diff"))).to.equal(ErrorCode.INVALID_PARAMS);
    expect(kept.get("b", "diff").snapshotId).to.equal("b");
    kept.add(snapshot("huge", lineCount * 4, 100));
    expect(kept.get("huge", "diff").snapshotId).to.equal("huge");
    expect(codeOf(() => kept.get("c", "diff"))).to.equal(ErrorCode.INVALID_PARAMS);
  });
});
