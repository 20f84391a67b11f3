import { expect } from "chai";
import { Budget } from "../../../src/budget.js";
import { CallbackRegistry, ProtocolError } from "../../../src/cdp/callback-registry.js";
import { HubError } from "../../../src/errors.js";

describe("CallbackRegistry (every CDP command with a deadline and a typed failure)", () => {
  it("resolves a command with Chrome's result, and drops a late answer to one already settled", async () => {
    const registry = new CallbackRegistry();
    const pending = registry.create(1, "Runtime.evaluate", { timeoutMs: 1_000 });
    registry.settle(1, { result: { type: "number", value: 2 } }, undefined);
    registry.settle(1, { result: "late" }, undefined);
    expect(await pending).to.deep.equal({ result: { type: "number", value: 2 } });
    expect(registry.size).to.equal(0);
  });

  it("rejects with a ProtocolError that names the method when Chrome answers an error", async () => {
    const registry = new CallbackRegistry();
    const pending = registry.create(7, "DOM.querySelector", { timeoutMs: 1_000 });
    registry.settle(7, undefined, { code: -32000, message: "Could not find node with given id" });
    const error = await pending.catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProtocolError);
    expect((error as ProtocolError).message).to.equal("DOM.querySelector: Could not find node with given id");
    expect((error as ProtocolError).protocolCode).to.equal(-32000);
  });

  it("fails a command Chrome never answers with TIMEOUT naming it, at its own deadline", async () => {
    const registry = new CallbackRegistry();
    const error = await registry.create(3, "Page.navigate", { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(HubError).and.include({ errorName: "TIMEOUT" });
    expect((error as HubError).message).to.include("Page.navigate");
    expect(registry.size).to.equal(0);
  });

  it("fails a command with its call's budget: at once when the budget is over, else when it ends", async () => {
    const registry = new CallbackRegistry();
    const budget = new Budget(30);
    try {
      const error = await registry.create(4, "Runtime.evaluate", { budget }).catch((e: unknown) => e);
      expect(error).to.equal(budget.reason);
      expect(await registry.create(5, "Runtime.evaluate", { budget }).catch((e: unknown) => e)).to.equal(budget.reason);
      expect(registry.size).to.equal(0);
    } finally {
      budget.dispose();
    }
  });

  it("rejects every pending command with the error made for its method when the connection closes", async () => {
    const registry = new CallbackRegistry();
    const pending = ["A.one", "B.two"].map((method, i) =>
      registry.create(i, method, { timeoutMs: 1_000 }).catch((e: unknown) => (e as Error).message),
    );
    registry.rejectAll((method) => new HubError("BROWSER_UNAVAILABLE", `${method}: Chrome went away`));
    expect(await Promise.all(pending)).to.deep.equal(["A.one: Chrome went away", "B.two: Chrome went away"]);
  });
});
