import { expect } from "chai";
import { ProtocolError } from "../../../src/cdp/callback-registry.js";
import { HubError } from "../../../src/errors.js";
import { runHubScript, wasTerminated } from "../../../src/runtime/hub-script.js";

const terminated = (): ProtocolError => new ProtocolError("Runtime.evaluate", { code: -32000, message: "Execution was terminated" });
const internal = (): ProtocolError => new ProtocolError("Runtime.evaluate", { code: -32603, message: "Internal error" });

/** A run that fails with each of `failures` in turn, then answers "done"; counts its runs. */
function failingThen(failures: Error[]): { run: () => Promise<string>; runs: () => number } {
  let runs = 0;
  return {
    run: () => {
      const failure = failures[runs++];
      return failure ? Promise.reject(failure) : Promise.resolve("done");
    },
    runs: () => runs,
  };
}

describe("runHubScript", () => {
  it("runs a script stopped by Runtime.terminateExecution again until it finishes", async () => {
    const script = failingThen([terminated(), terminated()]);
    expect(await runHubScript("the probe", script.run)).to.equal("done");
    expect(script.runs()).to.equal(3);
  });

  it("passes any other failure on at once, Internal error included", async () => {
    for (const failure of [internal(), new HubError("TIMEOUT", "budget"), new Error("other")]) {
      const script = failingThen([failure]);
      const error = await runHubScript("the probe", script.run).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.equal(failure);
      expect(script.runs()).to.equal(1);
    }
  });

  it("gives up after 10 runs with EVALUATION_FAILED named TerminatedError, naming the script", async () => {
    const script = failingThen(Array.from({ length: 20 }, terminated));
    const error = await runHubScript("the probe", script.run).then(
      () => null,
      (e: unknown) => e,
    );
    expect(script.runs()).to.equal(10);
    expect(error).to.be.instanceOf(HubError);
    expect((error as HubError).toWire()).to.deep.include({ code: -32000 });
    expect((error as HubError).message).to.match(/^the probe was stopped before it finished/);
    expect((error as HubError).data).to.include({ name: "TerminatedError" });
  });
});

describe("wasTerminated", () => {
  it("is Chrome's answer for a stopped script; Internal error only when the hub stopped a script meanwhile", () => {
    expect(wasTerminated(terminated(), false)).to.equal(true);
    expect(wasTerminated(internal(), false)).to.equal(false);
    expect(wasTerminated(internal(), true)).to.equal(true);
    expect(wasTerminated(new Error("Runtime.evaluate: Execution was terminated"), true)).to.equal(false);
    expect(
      wasTerminated(new ProtocolError("Runtime.evaluate", { code: -32000, message: "Cannot find context with specified id" }), true),
    ).to.equal(false);
  });
});
