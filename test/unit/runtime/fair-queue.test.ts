import { expect } from "chai";
import { FairQueue } from "../../../src/runtime/fair-queue.js";

/** Takes every job out, in the order the queue serves them. */
function drain<T>(queue: FairQueue<T>): T[] {
  const served: T[] = [];
  for (let job = queue.shift(); job !== undefined; job = queue.shift()) served.push(job);
  return served;
}

describe("FairQueue: one worker's jobs, clients in turn", () => {
  it("serves one job of each client in turn, each client's own jobs in order", () => {
    const queue = new FairQueue<string>(10);
    for (const job of ["a1", "a2", "a3", "a4"]) queue.push("alpha", job);
    queue.push("beta", "b1");
    queue.push("beta", "b2");
    queue.push("gamma", "g1");
    expect(drain(queue)).to.deep.equal(["a1", "b1", "g1", "a2", "b2", "a3", "a4"]);
  });

  it("a client whose first job comes while another's runs is served next, not after that client's following job", () => {
    const queue = new FairQueue<string>(10);
    for (const job of ["a1", "a2", "a3"]) queue.push("alpha", job);
    expect(queue.shift()).to.equal("a1");
    queue.push("beta", "b1");
    expect(queue.shift()).to.equal("b1");
    expect(queue.shift()).to.equal("a2");
    queue.push("beta", "b2");
    expect(drain(queue)).to.deep.equal(["b2", "a3"]);
  });

  it("holds at most perClient waiting jobs of a client: past them push queues nothing and says so; others still get in", () => {
    const queue = new FairQueue<string>(2);
    expect([queue.push("alpha", "a1"), queue.push("alpha", "a2"), queue.push("alpha", "a3")]).to.deep.equal([true, true, false]);
    expect(queue.push("beta", "b1")).to.equal(true);
    expect(queue.size).to.equal(3);
    // A served job frees its client's place.
    expect(queue.shift()).to.equal("a1");
    expect(queue.push("alpha", "a4")).to.equal(true);
    expect(drain(queue)).to.deep.equal(["b1", "a2", "a4"]);
  });

  it("drops the jobs of an ended call, whichever place in line they have, and keeps the rest in order", () => {
    const queue = new FairQueue<{ call: number; url: string }>(10);
    for (const [call, url] of [
      [1, "a"],
      [2, "b"],
      [1, "c"],
      [2, "d"],
    ] as const)
      queue.push("alpha", { call, url });
    queue.push("beta", { call: 3, url: "e" });
    const dropped = queue.drop("alpha", (job) => job.call === 1);
    expect(dropped.map((job) => job.url)).to.deep.equal(["a", "c"]);
    expect(queue.drop("alpha", (job) => job.call === 1)).to.deep.equal([]);
    expect(queue.drop("nobody", () => true)).to.deep.equal([]);
    expect(drain(queue).map((job) => job.url)).to.deep.equal(["b", "e", "d"]);
    // A client whose every job was dropped leaves the line.
    queue.push("alpha", { call: 4, url: "f" });
    queue.drop("alpha", () => true);
    expect([queue.size, queue.clients, queue.shift()]).to.deep.equal([0, 0, undefined]);
  });
});
