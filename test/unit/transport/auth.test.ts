import { expect } from "chai";
import { Authenticator, isLoopback } from "../../../src/transport/auth.js";

describe("transport/auth", () => {
  const auth = new Authenticator([
    { token: "full-access-token", scope: null, capabilities: null },
    { token: "scoped-token-1234", scope: new Set(["alpha"]), capabilities: null },
  ]);

  it("grants a known token its scope", () => {
    expect(auth.check("full-access-token")).to.deep.equal({ scope: null, capabilities: null, key: "token-0" });
    expect(auth.check("scoped-token-1234")?.scope).to.deep.equal(new Set(["alpha"]));
  });

  it("refuses no token, a wrong one, and one of another length", () => {
    expect(auth.check(null)).to.equal(null);
    expect(auth.check("full-access-tokeX")).to.equal(null);
    expect(auth.check("full")).to.equal(null);
  });

  it("grants everything when no token is configured", () => {
    const open = new Authenticator([]);
    expect(open.isOpen).to.equal(true);
    expect(open.check(null)).to.deep.equal({ scope: null, capabilities: null });
  });

  it("knows loopback addresses", () => {
    expect(["127.0.0.1", "::1", "::ffff:127.0.0.1"].every(isLoopback)).to.equal(true);
    expect(isLoopback("10.0.0.1")).to.equal(false);
  });
});
