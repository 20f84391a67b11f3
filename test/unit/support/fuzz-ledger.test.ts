import { expect } from "chai";
import { AnswerLedger } from "../../support/fuzz-ledger.js";
import { ANY_OUTCOME, failsWith, FOREIGN, type Owed } from "../../support/fuzz-rules.js";

/** A batch whose three items share the id "": a call on a foreign tab, a real call and an unknown method. */
function sharedIdBatch(ledger: AnswerLedger): void {
  const owed: Owed[] = [
    { key: '""', outcome: FOREIGN, isRequest: true },
    { key: '""', outcome: ANY_OUTCOME, isRequest: true },
    { key: '""', outcome: failsWith(-32601), isRequest: true },
  ];
  ledger.expect({ index: 1, category: "batch/full", data: "[]", binary: false, touchesTab: false, expect: { shape: "array", owed } });
}

const answers = (...codes: number[]): string =>
  JSON.stringify(codes.map((code) => ({ jsonrpc: "2.0", id: "", error: { code, message: "m" } })));

describe("AnswerLedger", () => {
  it("pairs a batch's answers sharing an id with items that may each get them, whatever their order", () => {
    // The real call refused as a duplicate id (-32600) fits the unknown method's item too, leniently: a greedy
    // pairing gave it that item, and the unknown method's own -32601 then counted as wrong.
    for (const order of [
      [-32002, -32600, -32601],
      [-32600, -32601, -32002],
      [-32601, -32600, -32002],
    ]) {
      const ledger = new AnswerLedger("forbidden");
      sharedIdBatch(ledger);
      ledger.receive(answers(...order));
      expect(ledger.findings, `answers ${order.join(", ")}`).to.deep.equal([]);
      expect(ledger.outstanding).to.equal(0);
    }
  });

  it("still reports an answer no item may get", () => {
    const ledger = new AnswerLedger("forbidden");
    sharedIdBatch(ledger);
    ledger.receive(answers(-32002, -32601, -32601));
    expect(ledger.findings.map((finding) => finding.kind)).to.deep.equal(["wrong"]);
    expect(ledger.outstanding).to.equal(0);
  });
});
