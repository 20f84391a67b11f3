import { expect } from "chai";
import { tooDeep } from "../../../src/rpc/nesting.js";

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe("tooDeep", () => {
  it("passes values nested up to the limit, objects and arrays alike", () => {
    expect(tooDeep({ args: nested(3) }, 4)).to.equal(null);
    expect(tooDeep({ a: { b: { c: "x" } } }, 3)).to.equal(null);
  });

  it("names where a value nests too deep", () => {
    expect(tooDeep({ args: nested(4) }, 4)).to.equal("/args/0/0/0");
    expect(tooDeep({ a: { b: { c: {} } } }, 3)).to.equal("/a/b/c");
  });

  it("walks a million levels without overflowing the stack", () => {
    expect(tooDeep(nested(1_000_000), 64)).to.match(/^(\/0){64}$/);
  });
});
