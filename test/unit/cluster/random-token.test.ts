import { expect } from "chai";
import { newCallId } from "../../../src/cluster/messages.js";
import { randomToken } from "../../../src/cluster/random-token.js";

describe("randomToken and newCallId: 128 random bits each, never the same twice", () => {
  it("gives 22 base64url characters, all different over many refills of the pool", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const token = i % 2 === 0 ? randomToken() : newCallId();
      expect(token).to.match(/^[A-Za-z0-9_-]{22}$/);
      seen.add(token);
    }
    expect(seen.size).to.equal(20_000);
  });
});
