import { expect } from "chai";
import { MessageSigner } from "../../../src/cluster/signed-envelope.js";

const SECRET = "a-cluster-secret-of-the-test";
const BODY = JSON.stringify({ type: "answer", id: "x", from: "one", response: "{}" });

describe("MessageSigner: HMAC-SHA256 over the header and the body", () => {
  const signer = new MessageSigner(SECRET);

  it("opens what it sealed: the time, a fresh nonce each time, the recipient and the body unchanged", () => {
    const first = signer.open(signer.seal(BODY, "two", 1_700_000_000_000));
    const second = signer.open(signer.seal(BODY, "two", 1_700_000_000_000));
    expect(first).to.deep.include({ timestampMs: 1_700_000_000_000, to: "two", body: BODY });
    expect(typeof first === "object" && typeof second === "object" && first.nonce !== second.nonce).to.equal(true);
  });

  it("calls a message with no signature header unsigned, and one with a broken header malformed", () => {
    expect(signer.open(BODY)).to.equal("unsigned");
    expect(signer.open("")).to.equal("unsigned");
    const sealed = signer.seal(BODY, "two");
    const [head = "", body = ""] = [sealed.slice(0, sealed.indexOf("\n")), sealed.slice(sealed.indexOf("\n") + 1)];
    const parts = head.split(" ");
    expect(signer.open(`${head} extra\n${body}`)).to.equal("malformed");
    expect(signer.open(`${parts.slice(0, 4).join(" ")}\n${body}`)).to.equal("malformed");
    expect(signer.open(head)).to.equal("malformed");
    expect(signer.open([parts[0], "-1", ...parts.slice(2)].join(" ") + `\n${body}`)).to.equal("malformed");
    expect(signer.open([...parts.slice(0, 4), "short"].join(" ") + `\n${body}`)).to.equal("malformed");
  });

  it("looks for the header's end in the first characters only: 20 MB with no newline is malformed", () => {
    expect(signer.open(`tw1 ${"x".repeat(20 * 1024 * 1024)}`)).to.equal("malformed");
  });

  it("calls forged a message signed with another secret, or any part of it changed after signing", () => {
    const sealed = signer.seal(BODY, "two", 1_700_000_000_000);
    expect(new MessageSigner("another-secret-of-16+").open(sealed)).to.equal("forged");
    expect(signer.open(sealed.replace('"id":"x"', '"id":"y"'))).to.equal("forged");
    expect(signer.open(sealed.replace(" two ", " three "))).to.equal("forged");
    expect(signer.open(sealed.replace("1700000000000", "1700000000001"))).to.equal("forged");
    expect(signer.open(`${sealed} `)).to.equal("forged");
  });

  it("refuses to seal for a recipient that would break the header", () => {
    expect(() => signer.seal(BODY, "two three")).to.throw(/recipient/);
    expect(() => signer.seal(BODY, "two\nthree")).to.throw(/recipient/);
    expect(() => signer.seal(BODY, "")).to.throw(/recipient/);
  });
});
