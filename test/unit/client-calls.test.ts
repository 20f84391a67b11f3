import { expect } from "chai";
import { ClientCalls } from "../../src/client-calls.js";

describe("ClientCalls", () => {
  it("counts a client's calls and errors by its target's or clientId's client, and forgets a client that went", () => {
    const calls = new ClientCalls();
    calls.record("gone:TAB1", false);
    calls.record("gone", true);
    calls.record("kept:TAB2", false);
    expect(calls.of("gone")).to.include({ calls: 2, errors: 1 });
    calls.forget("gone");
    expect(calls.of("gone")).to.deep.equal({ calls: 0, errors: 0, perSecond: 0 });
    expect(calls.of("kept")).to.include({ calls: 1, errors: 0 });
    expect(calls.hub()).to.include({ calls: 3, errors: 1 });
  });
});
