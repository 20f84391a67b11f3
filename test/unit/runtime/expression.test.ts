import { expect } from "chai";
import { isObjectLiteral, prepareExpression } from "../../../src/runtime/expression.js";

describe("runtime/expression", () => {
  it("wraps isolated code in a block that a trailing line comment cannot break", () => {
    expect(prepareExpression("let x = 1; x // done", true)).to.deep.equal({
      expression: "{let x = 1; x // done\n}",
      replMode: false,
      columnOffset: 1,
      isBlock: true,
    });
  });

  it("leaves code as it is when isolate is off", () => {
    expect(prepareExpression("var y = 2", false).expression).to.equal("var y = 2");
  });

  it("turns on replMode only for code that awaits", () => {
    expect(prepareExpression("await fetch('/')", true).replMode).to.equal(true);
    expect(prepareExpression("1 + 1", true).replMode).to.equal(false);
  });

  it("reads braces that parse as an object as an object literal, as the DevTools console does", () => {
    expect(isObjectLiteral("{a: 1, b: 2}")).to.equal(true);
    expect(isObjectLiteral("{ let a = 1; a }")).to.equal(false);
    expect(prepareExpression("{a: 1}", true).expression).to.equal("({a: 1}\n)");
  });
});
