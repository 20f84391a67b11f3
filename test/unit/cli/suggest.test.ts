import { expect } from "chai";
import { closestName } from "../../../src/cli/suggest.js";

describe("cli/suggest", () => {
  const names = ["snapshot", "screenshot", "status", "tabs", "eval", "navigate", "console", "content", "type", "press"];

  it("suggests the command one or two slips away: a letter left out, added, changed, or two swapped", () => {
    expect(closestName("snapsot", names)).to.equal("snapshot");
    expect(closestName("snapshoot", names)).to.equal("snapshot");
    expect(closestName("navigat", names)).to.equal("navigate");
    expect(closestName("stauts", names)).to.equal("status");
    expect(closestName("EVAL", names)).to.equal("eval");
  });

  it("takes the nearest of several, and allows one slip only in a short name", () => {
    expect(closestName("contnet", names)).to.equal("content");
    expect(closestName("tpye", names)).to.equal("type");
    expect(closestName("tx", names)).to.equal(undefined);
  });

  it("suggests nothing for a word like no command", () => {
    expect(closestName("frobnicate", names)).to.equal(undefined);
    expect(closestName("", names)).to.equal(undefined);
  });
});
