import { expect } from "chai";
import { applyMaxSize } from "../../../src/runtime/remote-value.js";

describe("runtime/remote-value applyMaxSize", () => {
  it("cuts the JSON of a long value to maxSize bytes and marks it truncated", () => {
    const result = applyMaxSize({ type: "string", value: "x".repeat(10_000) }, 100);
    expect(result.truncated).to.equal(true);
    expect(Buffer.byteLength(result.value as string)).to.equal(100);
    expect(result.value).to.equal(`"${"x".repeat(99)}`);
  });

  it("leaves a value that fits alone", () => {
    expect(applyMaxSize({ type: "object", value: [1, 2] }, 5)).to.deep.equal({ type: "object", value: [1, 2] });
  });

  it("never cuts a multi-byte character in half", () => {
    const result = applyMaxSize({ type: "string", value: "ééé" }, 4);
    expect(result.value).to.equal('"é');
  });
});
