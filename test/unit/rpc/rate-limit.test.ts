import { expect } from "chai";
import { RateLimit } from "../../../src/rpc/rate-limit.js";

describe("RateLimit (RATE_LIMIT_PER_SEC)", () => {
  it("lets a burst of perSecond through, then says how long to wait", () => {
    const rate = new RateLimit(5);
    const waits = Array.from({ length: 6 }, () => rate.take());
    expect(waits.slice(0, 5)).to.deep.equal([0, 0, 0, 0, 0]);
    expect(waits[5]).to.be.within(1, 200);
  });

  it("is off at 0", () => {
    const rate = new RateLimit(0);
    expect(Array.from({ length: 1000 }, () => rate.take()).every((wait) => wait === 0)).to.equal(true);
  });
});
