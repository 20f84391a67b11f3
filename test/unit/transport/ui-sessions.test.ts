import { expect } from "chai";
import { UiSessions } from "../../../src/transport/ui-sessions.js";

const tokenA = { scope: null, capabilities: null, key: "token-0" };
const tokenB = { scope: new Set(["beta"]), capabilities: null, key: "token-1" };

describe("UiSessions: the dashboard's sessions", () => {
  it("a token past its cap ends its own oldest sessions, never another token's", () => {
    const sessions = new UiSessions({ perToken: 3, total: 100 });
    const first = sessions.open(tokenB) as string;
    const mine = Array.from({ length: 10 }, () => sessions.open(tokenA) as string);
    expect(sessions.grantOf(first), "token B's session").to.equal(tokenB);
    expect(mine.map((id) => sessions.grantOf(id) !== null)).to.deep.equal([...Array<boolean>(7).fill(false), true, true, true]);
    expect(sessions.size).to.equal(4);
  });

  it("when the store is full of live sessions a new token's sign-in is refused (null) and nobody is signed out; a token at its cap still rotates its own", () => {
    const sessions = new UiSessions({ perToken: 2, total: 4 });
    const held = [tokenA, tokenA, tokenB, tokenB].map((grant) => sessions.open(grant) as string);
    expect(sessions.open({ scope: null, capabilities: null, key: "token-2" })).to.equal(null);
    expect(held.every((id) => sessions.grantOf(id) !== null)).to.equal(true);
    const rotated = sessions.open(tokenA);
    expect(rotated).to.be.a("string");
    expect(sessions.grantOf(held[0] as string)).to.equal(null);
    expect(sessions.grantOf(held[2] as string)).to.equal(tokenB);
    sessions.close(held[3] as string);
    expect(sessions.open({ scope: null, capabilities: null, key: "token-2" }), "after a sign-out").to.be.a("string");
  });
});
