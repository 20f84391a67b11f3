import { expect } from "chai";
import { exceptionToError } from "../../../src/runtime/exception.js";

describe("runtime/exception", () => {
  it("names the error and keeps the page's stack, with positions in the caller's code", () => {
    const error = exceptionToError(
      {
        exceptionId: 1,
        text: "Uncaught",
        lineNumber: 0,
        columnNumber: 3,
        exception: {
          type: "object",
          subtype: "error",
          className: "ReferenceError",
          description: "ReferenceError: x is not defined\n    at <anonymous>:1:3",
        },
      },
      1,
    );
    expect(error.errorName).to.equal("EVALUATION_FAILED");
    expect(error.message).to.equal("ReferenceError: x is not defined");
    expect(error.data).to.deep.equal({
      name: "ReferenceError",
      message: "x is not defined",
      stack: "ReferenceError: x is not defined\n    at <anonymous>:1:3",
      lineNumber: 0,
      columnNumber: 2,
    });
  });

  it("reports a thrown non-Error as Uncaught with its value", () => {
    const error = exceptionToError(
      { exceptionId: 2, text: "Uncaught", lineNumber: 0, columnNumber: 1, exception: { type: "string", value: "boom" } },
      1,
    );
    expect(error.message).to.equal("Uncaught: boom");
  });
});
