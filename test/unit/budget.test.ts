import { expect } from "chai";
import { Budget } from "../../src/budget.js";
import { isHubError } from "../../src/errors.js";

describe("Budget", () => {
  it("ends at its deadline with TIMEOUT: listeners told once, the signal aborted, isTimedOut", async () => {
    const budget = new Budget(20);
    let told = 0;
    const ended = new Promise<void>((resolve) =>
      budget.onEnd(() => {
        told++;
        resolve();
      }),
    );
    await ended;
    expect(told).to.equal(1);
    expect(budget.isOver && budget.isTimedOut).to.equal(true);
    expect(isHubError(budget.reason, "TIMEOUT")).to.equal(true);
    expect(budget.signal.aborted).to.equal(true);
    expect(budget.signal.reason).to.equal(budget.reason);
    budget.dispose();
  });

  it("a cancel ends it with the cancel's reason; a signal asked for afterwards is already aborted with it", () => {
    const budget = new Budget(10_000);
    const reason = new Error("cancelled by the caller");
    budget.cancel(reason);
    expect(budget.isOver).to.equal(true);
    expect(budget.isTimedOut).to.equal(false);
    expect(budget.signal.aborted).to.equal(true);
    expect(budget.signal.reason).to.equal(reason);
    let told = false;
    budget.onEnd(() => (told = true));
    expect(told, "a listener added after the end is called at once").to.equal(true);
    budget.dispose();
  });

  it("a signal asked for before the end fires at the end", () => {
    const budget = new Budget(10_000);
    const signal = budget.signal;
    expect(signal.aborted).to.equal(false);
    budget.cancel(new Error("stop"));
    expect(signal.aborted).to.equal(true);
    budget.dispose();
  });

  it("a listener that stopped watching, or a disposed budget, hears nothing", () => {
    const budget = new Budget(10_000);
    let stopped = 0;
    let disposedOf = 0;
    const stop = budget.onEnd(() => stopped++);
    stop();
    budget.onEnd(() => disposedOf++);
    budget.dispose();
    budget.cancel(new Error("late"));
    expect([stopped, disposedOf]).to.deep.equal([0, 0]);
  });

  it("race settles like the promise, or rejects with the reason when the budget ends first", async () => {
    const budget = new Budget(10_000);
    expect(await budget.race(Promise.resolve(7))).to.equal(7);
    const never = new Promise<never>(() => {});
    const raced = budget.race(never);
    const reason = new Error("gone");
    budget.cancel(reason);
    expect(await raced.catch((error: unknown) => error)).to.equal(reason);
    expect(await budget.race(Promise.resolve(1)).catch((error: unknown) => error), "after the end").to.equal(reason);
    budget.dispose();
  });

  it("runs what was deferred when disposed, and at once after", () => {
    const budget = new Budget(10_000);
    const released: string[] = [];
    budget.defer(() => released.push("session"));
    expect(released).to.deep.equal([]);
    budget.dispose();
    budget.defer(() => released.push("late"));
    expect(released).to.deep.equal(["session", "late"]);
  });
});
