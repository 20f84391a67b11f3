import { expect } from "chai";
import { StateSealer } from "../../../src/cluster/sealed-state.js";

const SECRET = "a-cluster-secret-of-the-tests";
const STATE = JSON.stringify({ cookies: [{ name: "session", value: "s-42" }] });

describe("StateSealer: a persistent client's state as Redis keeps it", () => {
  const sealer = new StateSealer(SECRET);

  it("opens what it sealed for the same client, and the sealed text does not show the state", () => {
    const sealed = sealer.seal("keeper", STATE);
    expect(sealed).not.to.include("s-42");
    expect(sealer.open("keeper", sealed)).to.equal(STATE);
    // A fresh IV for each seal: the same state never seals to the same text.
    expect(sealer.seal("keeper", STATE)).not.to.equal(sealed);
  });

  it("opens nothing sealed for another client, with another secret, altered, cut short or made up", () => {
    const sealed = sealer.seal("keeper", STATE);
    expect(sealer.open("other", sealed)).to.equal(null);
    expect(new StateSealer("another-secret-of-the-tests").open("keeper", sealed)).to.equal(null);
    const [version, iv, tag, body] = sealed.split(".") as [string, string, string, string];
    const flipped = (body[0] === "A" ? "B" : "A") + body.slice(1);
    expect(sealer.open("keeper", [version, iv, tag, flipped].join("."))).to.equal(null);
    expect(sealer.open("keeper", [version, iv, tag.slice(0, 8), body].join("."))).to.equal(null);
    expect(sealer.open("keeper", [version, iv, tag].join("."))).to.equal(null);
    expect(sealer.open("keeper", STATE)).to.equal(null);
    expect(sealer.open("keeper", "")).to.equal(null);
  });
});
