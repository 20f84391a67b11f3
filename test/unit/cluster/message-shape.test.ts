import { expect } from "chai";
import { MAX_MESSAGE_DEPTH, parseClusterMessage } from "../../../src/cluster/message-shape.js";

const CALL = {
  type: "call",
  id: "Zm9vYmFyYmF6cXV4cXV1eA",
  from: "one",
  conn: "c-1",
  scope: ["team"],
  peer: "127.0.0.1",
  method: "evaluate",
  params: { target: "team:ABC", expression: "1" },
};

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe("parseClusterMessage: JSON, depth, then the fields of each type", () => {
  it("reads every type of message with its fields", () => {
    const messages = [
      CALL,
      { ...CALL, scope: null },
      { type: "answer", id: "x", from: "two", response: '{"jsonrpc":"2.0","id":"x","result":{}}' },
      { type: "notify", conn: "c-1", method: "console.message", params: { text: "hi" } },
      { type: "cancel", id: "x", from: "one", conn: "c-1" },
      { type: "closed", from: "one", conn: "c-1" },
      { type: "evict", target: "worker:default", epoch: "1700000000000000" },
      { type: "event", from: "two", topic: "tabs", clientId: "team", method: "tab.opened", params: { target: "team:ABC" } },
      { type: "resume", id: "x", from: "two", conn: "t-1", binding: "token-0", session: "s-1", lastSeq: 12 },
      { type: "resumed", id: "x", from: "one", answer: '{"resumed":true}' },
      { type: "frame", direction: "up", from: "two", conn: "t-1", texts: ["{not json"] },
      { type: "frame", direction: "down", from: "one", conn: "t-1", texts: ['{"jsonrpc":"2.0","method":"console.message"}', "{}"] },
      { type: "untunnel", from: "two", conn: "t-1", dropped: true },
      { type: "untunnel", from: "one", conn: "t-1", dropped: false, code: 4000, reason: "resumed elsewhere" },
    ];
    for (const message of messages) expect(parseClusterMessage(JSON.stringify(message)), message.type).to.deep.equal(message);
  });

  it("keeps only the fields a type has", () => {
    const text = JSON.stringify({ ...CALL, extra: { big: "x" } }).replace(/}$/, ',"__proto__":{"polluted":true}}');
    const message = parseClusterMessage(text);
    expect(message).to.deep.equal(CALL);
    expect(Object.keys(message ?? {})).not.to.include("__proto__");
  });

  it("refuses what is not JSON, not an object, of no known type, or a field of the wrong kind", () => {
    const refused = [
      "{",
      "[]",
      "null",
      '"call"',
      JSON.stringify({ type: "constructor" }),
      JSON.stringify({ type: "__proto__" }),
      JSON.stringify({ ...CALL, scope: "team" }),
      JSON.stringify({ ...CALL, scope: ["team", 1] }),
      JSON.stringify({ ...CALL, scope: ["no spaces allowed"] }),
      JSON.stringify({ ...CALL, params: [] }),
      JSON.stringify({ ...CALL, params: null }),
      JSON.stringify({ ...CALL, from: "not an instance id" }),
      JSON.stringify({ ...CALL, id: "" }),
      JSON.stringify({ ...CALL, id: "x".repeat(129) }),
      JSON.stringify({ ...CALL, method: 5 }),
      JSON.stringify({ type: "answer", id: "x", from: "two", response: { result: {} } }),
      JSON.stringify({ type: "evict", target: "w:d", epoch: "soon" }),
      JSON.stringify({ type: "event", from: "two", topic: "secrets", clientId: "team", method: "tab.opened", params: {} }),
      JSON.stringify({ type: "resume", id: "x", from: "two", conn: "t-1", binding: "token-0", session: "s-1", lastSeq: -1 }),
      JSON.stringify({ type: "resume", id: "x", from: "two", conn: "t-1", binding: "token-0", session: "s-1", lastSeq: "12" }),
      JSON.stringify({ type: "resume", id: "x", from: "two", conn: "t-1", session: "s-1", lastSeq: 1 }),
      JSON.stringify({ type: "frame", direction: "sideways", from: "two", conn: "t-1", texts: ["{}"] }),
      JSON.stringify({ type: "frame", direction: "up", from: "two", conn: "t-1", texts: [] }),
      JSON.stringify({ type: "frame", direction: "up", from: "two", conn: "t-1", text: "{}" }),
      JSON.stringify({ type: "frame", direction: "up", from: "two", conn: "t-1", texts: [{ method: "ping" }] }),
      JSON.stringify({ type: "untunnel", from: "two", conn: "t-1", dropped: "yes" }),
    ];
    for (const text of refused) expect(parseClusterMessage(text), text.slice(0, 80)).to.equal(null);
  });

  it(`refuses a message nested deeper than ${MAX_MESSAGE_DEPTH} levels, up to 100,000 levels, without overflowing the stack`, () => {
    const notify = (params: unknown): string =>
      JSON.stringify({ type: "notify", conn: "c", method: "agent.status", params: { message: params } });
    expect(parseClusterMessage(notify(nested(MAX_MESSAGE_DEPTH - 4)))).not.to.equal(null);
    expect(parseClusterMessage(notify(nested(MAX_MESSAGE_DEPTH)))).to.equal(null);
    const deep = `{"type":"notify","conn":"c","method":"m","params":{"message":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`;
    expect(parseClusterMessage(deep)).to.equal(null);
  });
});
