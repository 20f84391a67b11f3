import { expect } from "chai";
import { ReplayGuard } from "../../../src/cluster/replay-guard.js";

const WINDOW_MS = 30_000;
const T0 = 1_700_000_000_000;

describe("ReplayGuard: nonces kept by their message's timestamp, for as long as the message could be taken", () => {
  it("takes a nonce once and refuses it again", () => {
    const guard = new ReplayGuard(WINDOW_MS);
    expect(guard.take("a", T0, T0)).to.equal(true);
    expect(guard.take("a", T0, T0 + 1_000)).to.equal(false);
    expect(guard.take("b", T0, T0 + 1_000)).to.equal(true);
  });

  it("still refuses a message dated ahead of the clock until that date is a whole window past", () => {
    const guard = new ReplayGuard(WINDOW_MS);
    const ahead = T0 + WINDOW_MS - 1;
    expect(guard.take("future", ahead, T0)).to.equal(true);
    // The codec would still take the message until now - window > ahead.
    expect(guard.take("future", ahead, ahead + WINDOW_MS)).to.equal(false);
  });

  it("forgets nonces whose messages are stale: memory holds about three windows of traffic, however long it runs", () => {
    const guard = new ReplayGuard(WINDOW_MS);
    let largest = 0;
    for (let second = 0; second < 600; second++) {
      const now = T0 + second * 1_000;
      for (let n = 0; n < 100; n++) guard.take(`${second}-${n}`, now, now);
      largest = Math.max(largest, guard.size);
    }
    expect(largest).to.be.at.most(3 * 30 * 100);
    expect(largest).to.be.at.least(2 * 30 * 100 - 100);
  });
});
