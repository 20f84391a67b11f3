import { expect } from "chai";
import { DropCounter, type DropReason } from "../../../src/cluster/drop-counter.js";

describe("DropCounter: every drop counted, each reason logged once a minute at most", () => {
  it("counts every drop and logs a reason again only a minute after its last line, with how many it did not log", () => {
    const clock = { now: 0 };
    const counted: DropReason[] = [];
    const lines: { message: string; meta: Record<string, unknown> }[] = [];
    const counter = new DropCounter({
      count: (reason) => counted.push(reason),
      warn: (message, meta) => lines.push({ message, meta }),
      now: () => clock.now,
    });
    for (let i = 0; i < 1_000; i++) counter.drop("forged");
    counter.drop("stale");
    clock.now = 59_999;
    counter.drop("forged");
    clock.now = 60_000;
    counter.drop("forged");
    expect(counted.length).to.equal(1_003);
    expect(lines.map((line) => line.meta)).to.deep.equal([
      { reason: "forged", alsoDroppedSinceLastLine: 0 },
      { reason: "stale", alsoDroppedSinceLastLine: 0 },
      { reason: "forged", alsoDroppedSinceLastLine: 1_000 },
    ]);
    expect(lines[0]?.message).to.match(/CLUSTER_SECRET/);
    expect(lines[1]?.message).to.match(/clock/);
  });
});
