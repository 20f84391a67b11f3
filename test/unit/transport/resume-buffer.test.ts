import { expect } from "chai";
import { ReplayBuffer } from "../../../src/transport/resume-buffer.js";

/** Pushes notifications `from`..`to` as texts "n<seq>". */
function fill(buffer: ReplayBuffer, from: number, to: number): void {
  for (let seq = from; seq <= to; seq++) buffer.push(seq, `n${seq}`);
}

describe("ReplayBuffer: what a dropped session keeps for a resume", () => {
  it("gives the notifications after lastSeq in order, none twice", () => {
    const buffer = new ReplayBuffer({ maxMessages: 100, maxBytes: 10_000 });
    fill(buffer, 1, 10);
    expect(buffer.after(7)).to.deep.equal(["n8", "n9", "n10"]);
    expect(buffer.after(10)).to.deep.equal([]);
    expect(buffer.after(0)).to.have.length(10);
  });

  it("keeps the newest maxMessages and says when some after lastSeq are gone", () => {
    const buffer = new ReplayBuffer({ maxMessages: 5, maxBytes: 10_000 });
    fill(buffer, 1, 3_000);
    expect(buffer.firstSeq).to.equal(2_996);
    expect(buffer.after(2_995)).to.deep.equal(["n2996", "n2997", "n2998", "n2999", "n3000"]);
    expect(buffer.after(2_994)).to.equal(null);
  });

  it("keeps within maxBytes; an answer owed goes before old notifications, and one too big even so is named as lost", () => {
    const buffer = new ReplayBuffer({ maxMessages: 1_000, maxBytes: 100 });
    for (let seq = 1; seq <= 50; seq++) buffer.push(seq, "x".repeat(10));
    expect(buffer.after(buffer.firstSeq - 1)!.join("").length).to.be.at.most(100);
    const fits = JSON.stringify({ jsonrpc: "2.0", id: 6, result: "y".repeat(20) });
    buffer.owe(fits);
    expect(buffer.after(buffer.firstSeq - 1)!.join("").length + fits.length).to.be.at.most(100);
    buffer.owe(JSON.stringify({ jsonrpc: "2.0", id: 7, result: "y".repeat(200) }));
    expect(buffer.lostCalls()).to.deep.equal([7, 6]);
    expect(buffer.takeOwed()).to.deep.equal([fits]);
  });

  it("hands the answers owed over once", () => {
    const buffer = new ReplayBuffer({ maxMessages: 10, maxBytes: 10_000 });
    const answer = JSON.stringify({ jsonrpc: "2.0", id: "a", result: 1 });
    buffer.owe(answer);
    expect(buffer.lostCalls()).to.deep.equal(["a"]);
    expect(buffer.takeOwed()).to.deep.equal([answer]);
    expect(buffer.takeOwed()).to.deep.equal([]);
  });
});
