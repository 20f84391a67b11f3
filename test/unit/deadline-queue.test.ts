import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DeadlineQueue } from "../../src/deadline-queue.js";

describe("DeadlineQueue", () => {
  it("fires each deadline once, earliest first, across durations added in any order", async () => {
    const queue = new DeadlineQueue();
    const fired: string[] = [];
    const started = performance.now();
    const all = await new Promise<number[]>((resolve) => {
      const times: number[] = [];
      const fire = (name: string) => () => {
        fired.push(name);
        times.push(performance.now() - started);
        if (fired.length === 4) resolve(times);
      };
      queue.add(120, fire("120 ms"));
      queue.add(30, fire("30 ms"));
      queue.add(60, fire("60 ms, first"));
      queue.add(60, fire("60 ms, second"));
    });
    expect(fired).to.deep.equal(["30 ms", "60 ms, first", "60 ms, second", "120 ms"]);
    expect(all[0]).to.be.at.least(30);
    expect(all[3]).to.be.at.least(120);
    expect(queue.size).to.equal(0);
  });

  it("never fires a removed deadline, whether it was the earliest, in the middle or the last", async () => {
    const queue = new DeadlineQueue();
    const fired: string[] = [];
    const earliest = queue.add(10, () => fired.push("earliest"));
    const middle = queue.add(20, () => fired.push("middle"));
    const last = queue.add(40, () => fired.push("last"));
    const kept = new Promise<void>((resolve) => queue.add(50, () => resolve()));
    for (const deadline of [earliest, middle, last]) queue.remove(deadline);
    queue.remove(middle);
    expect(queue.size).to.equal(1);
    await kept;
    expect(fired).to.deep.equal([]);
    expect(queue.size).to.equal(0);
  });

  it("does not keep the process alive: a process with only a 60 s deadline left exits at once", () => {
    const module = fileURLToPath(new URL("../../src/deadline-queue.js", import.meta.url));
    const script = `import("${module}").then(({ DeadlineQueue }) => { new DeadlineQueue().add(60000, () => process.exit(3)); })`;
    const child = spawnSync(process.execPath, ["-e", script], { timeout: 10_000 });
    expect(child.status).to.equal(0);
  });
});
