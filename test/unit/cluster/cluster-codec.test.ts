import { expect } from "chai";
import { ClusterCodec, REPLAY_WINDOW_MS, UnsendableMessageError } from "../../../src/cluster/cluster-codec.js";
import { DropCounter, type DropReason } from "../../../src/cluster/drop-counter.js";
import { keys, type ClusterMessage } from "../../../src/cluster/messages.js";
import { MessageSigner } from "../../../src/cluster/signed-envelope.js";

const SECRET = "a-cluster-secret-of-the-test";
const MAX_BYTES = 64 * 1024;
const CALL: ClusterMessage = {
  type: "call",
  id: "abc",
  from: "one",
  conn: "c-1",
  scope: ["team"],
  peer: "p",
  method: "evaluate",
  params: { target: "team:T1", expression: "1" },
};
const ANSWER: ClusterMessage = { type: "answer", id: "abc", from: "one", response: '{"jsonrpc":"2.0","id":"abc","result":{}}' };

/** One instance's codec with a clock the test moves, and the drops it counted by reason. */
function instance(id: string, clock: { now: number }, secret = SECRET): { codec: ClusterCodec; drops: DropReason[] } {
  const drops: DropReason[] = [];
  const counter = new DropCounter({ count: (reason) => drops.push(reason), warn: () => {}, now: () => clock.now });
  return { codec: new ClusterCodec({ secret, instanceId: id, maxMessageBytes: MAX_BYTES, drops: counter, now: () => clock.now }), drops };
}

describe("ClusterCodec: every message signed and sized when sent, verified and checked when received", () => {
  const clock = { now: 1_700_000_000_000 };
  const one = instance("one", clock);
  const two = instance("two", clock);
  beforeEach(() => {
    one.drops.length = 0;
    two.drops.length = 0;
  });

  it("carries messages between instances with the same secret: to an instance, to a target's owner, to everyone", () => {
    expect(two.codec.decode(one.codec.encode(ANSWER, "two"), keys.inbox("two"))).to.deep.equal(ANSWER);
    expect(two.codec.decode(one.codec.encode(CALL, "@team:T1"), keys.inbox("two"))).to.deep.equal(CALL);
    const event: ClusterMessage = { type: "event", from: "one", topic: "tabs", clientId: "team", method: "tab.opened", params: {} };
    expect(two.codec.decode(one.codec.encode(event, "*"), keys.events)).to.deep.equal(event);
    expect(two.drops).to.deep.equal([]);
  });

  it("drops what is unsigned, signed with another secret, or malformed, each counted by reason", () => {
    const outsider = instance("outsider", clock, "another-secret-of-16+");
    expect(two.codec.decode(JSON.stringify(CALL), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode(outsider.codec.encode(CALL, "@team:T1"), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode("tw1 garbage\n{}", keys.inbox("two"))).to.equal(null);
    const signer = new MessageSigner(SECRET);
    expect(two.codec.decode(signer.seal("{not json", "two", clock.now), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode(signer.seal(JSON.stringify({ ...ANSWER, response: 5 }), "two", clock.now), keys.inbox("two"))).to.equal(null);
    expect(two.drops).to.deep.equal(["unsigned", "forged", "malformed", "malformed", "malformed"]);
  });

  it(`drops a message signed more than ${REPLAY_WINDOW_MS / 1000} s from now, either way`, () => {
    const signer = new MessageSigner(SECRET);
    const body = JSON.stringify(ANSWER);
    expect(two.codec.decode(signer.seal(body, "two", clock.now - REPLAY_WINDOW_MS - 1), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode(signer.seal(body, "two", clock.now + REPLAY_WINDOW_MS + 1), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode(signer.seal(body, "two", clock.now - REPLAY_WINDOW_MS + 1), keys.inbox("two"))).to.deep.equal(ANSWER);
    expect(two.drops).to.deep.equal(["stale", "stale"]);
  });

  it("drops a message taken before, or signed for another instance or channel, as replayed", () => {
    const text = one.codec.encode(ANSWER, "two");
    expect(two.codec.decode(text, keys.inbox("two"))).to.deep.equal(ANSWER);
    expect(two.codec.decode(text, keys.inbox("two"))).to.equal(null);
    const three = instance("three", clock);
    expect(three.codec.decode(one.codec.encode(ANSWER, "two"), keys.inbox("three"))).to.equal(null);
    expect(two.codec.decode(one.codec.encode(ANSWER, "two"), keys.events)).to.equal(null);
    const event: ClusterMessage = { type: "event", from: "one", topic: "tabs", clientId: "team", method: "tab.opened", params: {} };
    expect(two.codec.decode(one.codec.encode(event, "*"), keys.inbox("two"))).to.equal(null);
    // A call of instance one for a target's owner, sent back to one's own inbox.
    expect(one.codec.decode(one.codec.encode(CALL, "@team:T1"), keys.inbox("one"))).to.equal(null);
    expect([...two.drops, ...three.drops, ...one.drops]).to.deep.equal(["replayed", "replayed", "replayed", "replayed", "replayed"]);
  });

  it("drops a call for a target's owner whose body is not that call", () => {
    expect(two.codec.decode(one.codec.encode(CALL, "@team:OTHER"), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode(one.codec.encode(ANSWER, "@team:T1"), keys.inbox("two"))).to.equal(null);
    expect(two.drops).to.deep.equal(["malformed", "malformed"]);
  });

  it("carries a call for a client's keeper (@@clientId) only when the call names that client, by clientId or its target", () => {
    const opening: ClusterMessage = { ...CALL, method: "tabs.open", params: { clientId: "team", url: "about:blank" } };
    expect(two.codec.decode(one.codec.encode(opening, "@@team"), keys.inbox("two"))).to.deep.equal(opening);
    expect(two.codec.decode(one.codec.encode(CALL, "@@team"), keys.inbox("two"))).to.deep.equal(CALL);
    expect(two.codec.decode(one.codec.encode(opening, "@@other"), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode(one.codec.encode(CALL, "@@tea"), keys.inbox("two"))).to.equal(null);
    const both: ClusterMessage = { ...CALL, params: { clientId: "other", target: "team:T1" } };
    expect(two.codec.decode(one.codec.encode(both, "@@team"), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode(one.codec.encode(ANSWER, "@@team"), keys.inbox("two"))).to.equal(null);
    expect(two.drops).to.deep.equal(["malformed", "malformed", "malformed", "malformed"]);
  });

  it("refuses to send a message over CLUSTER_MAX_MESSAGE_BYTES, counted, and says how big it was", () => {
    // Counted in bytes, not characters: "é" is two.
    const big: ClusterMessage = { ...ANSWER, response: "é".repeat(MAX_BYTES / 2 + 1) };
    const refused = catchUnsendable(() => one.codec.encode(big, "two"));
    expect(refused).to.include({ reason: "too_large", bytes: MAX_BYTES + 2, maxBytes: MAX_BYTES });
    const notify: ClusterMessage = { type: "notify", conn: "c", method: "console.message", params: { text: "x".repeat(MAX_BYTES) } };
    expect(catchUnsendable(() => one.codec.encode(notify, "two")).reason).to.equal("too_large");
    // Just under the cap with the header: sent.
    const fits: ClusterMessage = { ...ANSWER, response: "x".repeat(MAX_BYTES - 250) };
    expect(two.codec.decode(one.codec.encode(fits, "two"), keys.inbox("two"))).to.deep.equal(fits);
    expect(one.drops).to.deep.equal(["too_large", "too_large"]);
  });

  it("drops a received message over CLUSTER_MAX_MESSAGE_BYTES before checking anything else", () => {
    const big = new ClusterCodec({
      secret: SECRET,
      instanceId: "big",
      maxMessageBytes: 4 * MAX_BYTES,
      drops: new DropCounter({ count: () => {}, warn: () => {} }),
      now: () => clock.now,
    });
    expect(two.codec.decode(big.encode({ ...ANSWER, response: "x".repeat(2 * MAX_BYTES) }, "two"), keys.inbox("two"))).to.equal(null);
    expect(two.codec.decode("x".repeat(40 * 1024 * 1024), keys.inbox("two"))).to.equal(null);
    expect(two.drops).to.deep.equal(["too_large", "too_large"]);
  });

  it("refuses to send a message nested too deep to write back, counted as malformed", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(catchUnsendable(() => one.codec.encode({ type: "notify", conn: "c", method: "m", params: { deep } }, "two")).reason).to.equal(
      "malformed",
    );
    expect(one.drops).to.deep.equal(["malformed"]);
  });
});

function catchUnsendable(encode: () => unknown): UnsendableMessageError {
  try {
    encode();
  } catch (error) {
    if (error instanceof UnsendableMessageError) return error;
    throw error;
  }
  throw new Error("the message was encoded but should have been refused");
}
