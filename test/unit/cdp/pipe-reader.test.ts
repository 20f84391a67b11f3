import { expect } from "chai";
import { describeOversized, PipeReader } from "../../../src/cdp/pipe-reader.js";
import type { OversizedMessage } from "../../../src/cdp/transport.js";

/** A reader with a cap of `maxBytes` that records what it hands on. */
function reader(maxBytes: number): { reader: PipeReader; messages: string[]; oversized: OversizedMessage[] } {
  const messages: string[] = [];
  const oversized: OversizedMessage[] = [];
  return {
    reader: new PipeReader(maxBytes, { message: (text) => messages.push(text), oversized: (m) => oversized.push(m) }),
    messages,
    oversized,
  };
}

function framed(...messages: string[]): Buffer {
  return Buffer.from(messages.map((m) => `${m}\0`).join(""));
}

/** Cuts `bytes` into chunks of `size` bytes (the last one shorter). */
function chunks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

describe("PipeReader", () => {
  it("splits one chunk holding several NUL-ended messages, in order", () => {
    const { reader: r, messages } = reader(1024);
    r.push(framed('{"id":1,"result":{}}', '{"method":"A.b","params":{}}', '{"id":2,"result":{}}'));
    expect(messages).to.deep.equal(['{"id":1,"result":{}}', '{"method":"A.b","params":{}}', '{"id":2,"result":{}}']);
    expect(r.heldBytes).to.equal(0);
  });

  it("joins a message whose NUL comes in the next chunk, and one cut right at its NUL", () => {
    const { reader: r, messages } = reader(1024);
    r.push(Buffer.from('{"id":1,"res'));
    r.push(Buffer.from('ult":{}}'));
    expect(messages).to.deep.equal([]);
    r.push(Buffer.from('\0{"id":2,"result":{}}'));
    r.push(Buffer.from("\0"));
    expect(messages).to.deep.equal(['{"id":1,"result":{}}', '{"id":2,"result":{}}']);
  });

  it("reads a message split into many chunks, multi-byte characters cut in half included", () => {
    const text = JSON.stringify({ id: 7, result: { value: "é€😀".repeat(5_000) } });
    const { reader: r, messages } = reader(1024 * 1024);
    for (const chunk of chunks(framed(text, '{"id":8,"result":{}}'), 7)) r.push(chunk);
    expect(messages).to.deep.equal([text, '{"id":8,"result":{}}']);
  });

  it("lets an oversized answer go, recovers its id and sessionId, and reads the messages after it normally", () => {
    const big = `{"id":42,"result":{"result":{"type":"string","value":"${"x".repeat(200_000)}"}},"sessionId":"5E55"}`;
    const { reader: r, messages, oversized } = reader(64 * 1024);
    const bytes = framed('{"id":41,"result":{}}', big, '{"id":43,"result":{}}', '{"method":"A.b","params":{},"sessionId":"5E55"}');
    for (const chunk of chunks(bytes, 4096)) {
      r.push(chunk);
      expect(r.heldBytes).to.be.at.most(64 * 1024 + 4096);
    }
    expect(oversized).to.deep.equal([{ id: 42, sessionId: "5E55", method: undefined, bytes: Buffer.byteLength(big) }]);
    expect(messages).to.deep.equal(['{"id":41,"result":{}}', '{"id":43,"result":{}}', '{"method":"A.b","params":{},"sessionId":"5E55"}']);
  });

  it("holds only the two ends of an oversized message once past the cap, however long it goes on", () => {
    const { reader: r, oversized } = reader(10_000);
    r.push(Buffer.from('{"method":"Runtime.consoleAPICalled","params":{"args":"'));
    for (let i = 0; i < 100; i++) r.push(Buffer.alloc(10_000, "y"));
    expect(r.heldBytes).to.be.at.most(2_048);
    r.push(Buffer.from('"}}\0'));
    expect(oversized).to.have.length(1);
    expect(oversized[0]).to.include({ id: undefined, sessionId: undefined, method: "Runtime.consoleAPICalled" });
  });

  it("finds the oversized answer's id when it arrived in one chunk with its NUL", () => {
    const { reader: r, messages, oversized } = reader(100);
    r.push(framed(`{"id":9,"result":{"data":"${"z".repeat(500)}"}}`, '{"id":10,"result":{}}'));
    expect(oversized.map((m) => m.id)).to.deep.equal([9]);
    expect(messages).to.deep.equal(['{"id":10,"result":{}}']);
  });
});

describe("describeOversized", () => {
  it("does not take a sessionId-like key inside the page's value for the message's own", () => {
    const tail = `"value":{"a":"b","sessionId":"VICTIM"}}}}`;
    expect(describeOversized('{"id":3,"result":', tail, 1).sessionId).to.equal(undefined);
  });

  it("reads nothing from bytes that are not Chrome's layout", () => {
    expect(describeOversized("garbage", "garbage", 5)).to.deep.equal({ id: undefined, sessionId: undefined, method: undefined, bytes: 5 });
  });
});
