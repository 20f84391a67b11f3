import { expect } from "chai";
import { parseFrame } from "../../../src/rpc/envelope.js";

const strict = { maxBatch: 3, allowMissingVersion: false };

describe("rpc/envelope", () => {
  it("answers a frame that is not JSON with -32700 and id null", () => {
    const envelope = parseFrame('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]', strict);
    expect(envelope).to.deep.include({ kind: "frame-error" });
    expect(envelope.kind === "frame-error" && envelope.response).to.deep.include({
      id: null,
      error: { code: -32700, message: "Parse error: the frame is not valid JSON" },
    });
  });

  it("answers an empty batch with one -32600 object, not an array", () => {
    const envelope = parseFrame("[]", strict);
    expect(envelope.kind).to.equal("frame-error");
    expect(envelope.kind === "frame-error" && envelope.response).to.have.nested.property("error.code", -32600);
  });

  it("refuses a batch over MAX_BATCH as a whole", () => {
    const one = '{"jsonrpc":"2.0","method":"ping","id":1}';
    const envelope = parseFrame(`[${one},${one},${one},${one}]`, strict);
    expect(envelope.kind === "frame-error" && JSON.stringify(envelope.response)).to.match(/at most 3 \(MAX_BATCH\)/);
  });

  it("classifies every item of a batch on its own", () => {
    const envelope = parseFrame('[1, {"jsonrpc":"2.0","method":"ping","id":"a"}, null]', strict);
    expect(envelope.kind).to.equal("batch");
    const kinds = envelope.kind === "batch" ? envelope.items.map((item) => item.kind) : [];
    expect(kinds).to.deep.equal(["invalid", "request", "invalid"]);
  });

  for (const [why, frame, id] of [
    ["an object id", '{"jsonrpc":"2.0","method":"ping","id":{"a":1}}', null],
    ["string params", '{"jsonrpc":"2.0","method":"ping","params":"bar","id":7}', 7],
    ["a numeric method", '{"jsonrpc":"2.0","method":1,"params":"bar"}', null],
    ["a wrong version", '{"jsonrpc":"1.0","method":"ping","id":"x"}', "x"],
    ["a missing version", '{"method":"ping","id":3}', 3],
    ["null", "null", null],
  ] as const) {
    it(`treats ${why} as Invalid Request with id ${JSON.stringify(id)}`, () => {
      const envelope = parseFrame(frame, strict);
      expect(envelope.kind).to.equal("single");
      const item = envelope.kind === "single" ? envelope.item : null;
      expect(item?.kind).to.equal("invalid");
      expect(item?.kind === "invalid" && item.response).to.deep.include({ id, jsonrpc: "2.0" });
      expect(item?.kind === "invalid" && item.response).to.have.nested.property("error.code", -32600);
    });
  }

  it("tells a notification (no id) from a request with id null", () => {
    const notification = parseFrame('{"jsonrpc":"2.0","method":"ping"}', strict);
    const nullId = parseFrame('{"jsonrpc":"2.0","method":"ping","id":null}', strict);
    expect(notification.kind === "single" && notification.item).to.deep.include({ kind: "request", id: undefined });
    expect(nullId.kind === "single" && nullId.item).to.deep.include({ kind: "request", id: null });
  });

  it("accepts a frame without jsonrpc on endpoints that allow it (agents)", () => {
    const envelope = parseFrame('{"id":"1","method":"ping"}', { maxBatch: 3, allowMissingVersion: true });
    expect(envelope.kind === "single" && envelope.item.kind).to.equal("request");
    const notification = parseFrame('{"method":"ping"}', { maxBatch: 3, allowMissingVersion: true });
    expect(notification.kind === "single" && notification.item.kind).to.equal("invalid");
  });
});
