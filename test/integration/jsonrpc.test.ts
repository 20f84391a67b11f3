import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { connect, sharedHub, startTestHub } from "../support/test-hub.js";

const PARSE_ERROR = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the frame is not valid JSON" } };
const invalid = (id: unknown, why: string) => ({ jsonrpc: "2.0", id, error: { code: -32600, message: `Invalid Request: ${why}` } });

/** Sends a raw frame and resolves with the next frame the hub sends back. */
async function exchange(client: TestRpcClient, text: string): Promise<unknown> {
  client.sendRaw(text);
  return client.nextFrame();
}

/** Sends a raw frame, then a ping; resolves with the frame that arrives first (the ping's answer when nothing was owed). */
async function nothingOwedFor(client: TestRpcClient, text: string): Promise<boolean> {
  client.sendRaw(text);
  client.sendRaw('{"jsonrpc":"2.0","method":"ping","id":"after"}');
  const next = (await client.nextFrame()) as { id?: unknown };
  return next.id === "after";
}

describe("JSON-RPC rules of docs/protocol.md section 4 on /rpc (exact responses)", () => {
  let hub: Hub;
  let client: TestRpcClient;

  before(async () => {
    hub = await sharedHub();
    client = await connect(hub);
  });
  after(async () => client.close());

  it("a frame that is not JSON: -32700 with id null", async () => {
    expect(await exchange(client, '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]')).to.deep.equal(PARSE_ERROR);
  });

  it("a batch that is not JSON: one -32700", async () => {
    expect(
      await exchange(client, '[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]'),
    ).to.deep.equal(PARSE_ERROR);
  });

  it("an empty batch: one -32600 object, not an array", async () => {
    expect(await exchange(client, "[]")).to.deep.equal(invalid(null, "an empty batch"));
  });

  it("[1]: an array with one -32600", async () => {
    expect(await exchange(client, "[1]")).to.deep.equal([invalid(null, "a request must be an object")]);
  });

  it("[1,2,3]: three -32600", async () => {
    const one = invalid(null, "a request must be an object");
    expect(await exchange(client, "[1,2,3]")).to.deep.equal([one, one, one]);
  });

  it("[null]: an array with one -32600", async () => {
    expect(await exchange(client, "[null]")).to.deep.equal([invalid(null, "a request must be an object")]);
  });

  it("a one-element batch gets an array", async () => {
    const reply = (await exchange(client, '[{"jsonrpc":"2.0","method":"ping","id":1}]')) as { id: number; result: { pong: boolean } }[];
    expect(reply).to.be.an("array").with.length(1);
    expect(reply[0]).to.include({ jsonrpc: "2.0", id: 1 });
    expect(reply[0]?.result.pong).to.equal(true);
  });

  it("a request object with an invalid method and params: -32600", async () => {
    expect(await exchange(client, '{"jsonrpc": "2.0", "method": 1, "params": "bar"}')).to.deep.equal(
      invalid(null, "method must be a string"),
    );
  });

  it("an object id: -32600 with id null", async () => {
    expect(await exchange(client, '{"jsonrpc":"2.0","method":"ping","id":{"a":1}}')).to.deep.equal(
      invalid(null, "id must be a string, a number or null"),
    );
  });

  it("string params: -32600 with the request's id", async () => {
    expect(await exchange(client, '{"jsonrpc":"2.0","method":"ping","params":"x","id":5}')).to.deep.equal(
      invalid(5, "params must be an object (by name)"),
    );
  });

  it("a missing jsonrpc member: -32600", async () => {
    expect(await exchange(client, '{"method":"ping","id":6}')).to.deep.equal(invalid(6, 'jsonrpc must be "2.0"'));
  });

  it("params by position: -32602", async () => {
    expect(await exchange(client, '{"jsonrpc":"2.0","method":"ping","params":[1],"id":7}')).to.deep.equal({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32602,
        message: "params of ping must be an object of named params, not an array",
        data: { errors: [{ path: "/", message: "must be an object" }] },
      },
    });
  });

  it("an unknown method: -32601 with the id", async () => {
    expect(await exchange(client, '{"jsonrpc":"2.0","method":"foobar","id":"1"}')).to.deep.equal({
      jsonrpc: "2.0",
      id: "1",
      error: { code: -32601, message: 'method "foobar" does not exist; the methods are listed in protocol/tabwire.openrpc.json' },
    });
  });

  it("params that break the schema: -32602 with data.errors [{path, message}]", async () => {
    const reply = (await exchange(
      client,
      '{"jsonrpc":"2.0","method":"evaluate","params":{"target":"local:X","expression":5,"bogus":1},"id":8}',
    )) as {
      error: { code: number; data: { errors: { path: string; message: string }[] } };
    };
    expect(reply.error.code).to.equal(-32602);
    expect(reply.error.data.errors).to.deep.include.members([
      { path: "/bogus", message: "is not a parameter of this method" },
      { path: "/expression", message: "must be string" },
    ]);
  });

  it("a missing required param: -32602 naming it", async () => {
    const reply = (await exchange(client, '{"jsonrpc":"2.0","method":"navigate","params":{"target":"local:X"},"id":9}')) as {
      error: { data: { errors: unknown[] } };
    };
    expect(reply.error.data.errors).to.deep.equal([{ path: "/url", message: "is required" }]);
  });

  it("timeoutMs above MAX_TIMEOUT_MS: -32602", async () => {
    const reply = (await exchange(
      client,
      '{"jsonrpc":"2.0","method":"tabs.close","params":{"target":"local:X","timeoutMs":99999999},"id":10}',
    )) as {
      error: { code: number; data: unknown };
    };
    expect(reply.error).to.deep.include({ code: -32602, data: { errors: [{ path: "/timeoutMs", message: "must be at most 600000" }] } });
  });

  it("a malformed target: -32602; an unknown one: TARGET_NOT_FOUND", async () => {
    const malformed = (await exchange(client, '{"jsonrpc":"2.0","method":"tabs.close","params":{"target":"no-colon"},"id":11}')) as {
      error: { code: number };
    };
    expect(malformed.error.code).to.equal(-32602);
    const unknown = (await exchange(client, '{"jsonrpc":"2.0","method":"tabs.close","params":{"target":"local:ABC"},"id":12}')) as {
      error: unknown;
    };
    expect(unknown.error).to.deep.equal({ code: -32002, message: "no tab local:ABC; list tabs with tabs.list" });
  });

  it("a notification gets no response, even to an unknown method or with bad params", async () => {
    expect(await nothingOwedFor(client, '{"jsonrpc":"2.0","method":"ping"}')).to.equal(true);
    expect(await nothingOwedFor(client, '{"jsonrpc":"2.0","method":"nope"}')).to.equal(true);
    expect(await nothingOwedFor(client, '{"jsonrpc":"2.0","method":"evaluate","params":{"x":1}}')).to.equal(true);
  });

  it("a batch of notifications gets no frame at all", async () => {
    expect(await nothingOwedFor(client, '[{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"ping","params":{}}]')).to.equal(
      true,
    );
  });

  it("a mixed batch answers each request once, and no notification", async () => {
    const reply = (await exchange(
      client,
      JSON.stringify([
        { jsonrpc: "2.0", method: "ping", id: "1" },
        { jsonrpc: "2.0", method: "ping" },
        { jsonrpc: "2.0", method: "nope", id: "2" },
        { foo: "boo" },
        { jsonrpc: "2.0", method: "tabs.list", params: { clientId: "nobody" }, id: "5" },
      ]),
    )) as { id: unknown; error?: { code: number }; result?: unknown }[];
    expect(reply.map((r) => [r.id, r.error?.code ?? "ok"])).to.have.deep.members([
      ["1", "ok"],
      ["2", -32601],
      [null, -32600],
      ["5", "ok"],
    ]);
    expect(reply.find((r) => r.id === "5")?.result).to.deep.equal({ tabs: [] });
  });

  it("a request with id null is answered with id null", async () => {
    const reply = (await exchange(client, '{"jsonrpc":"2.0","method":"ping","id":null}')) as { id: unknown; result: unknown };
    expect(reply.id).to.equal(null);
    expect(reply.result).to.have.property("pong", true);
  });

  it("ping answers pong and the hub's clock", async () => {
    const before = Date.now();
    const result = await client.call<{ pong: boolean; time: number }>("ping");
    expect(result.pong).to.equal(true);
    expect(result.time).to.be.within(before - 1000, Date.now() + 1000);
  });

  it("a batch over MAX_BATCH is refused as a whole", async () => {
    const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", method: "ping", id: i }));
    expect(await exchange(client, JSON.stringify(batch))).to.deep.equal(
      invalid(null, "a batch of 101 requests; at most 100 (MAX_BATCH) per batch"),
    );
  });
});

describe("JSON-RPC limits with a small MAX_INFLIGHT", () => {
  let hub: Hub;
  let client: TestRpcClient;

  before(async () => {
    hub = await startTestHub({ MAX_INFLIGHT: "2" });
    client = await connect(hub);
  });
  after(async () => {
    await client.close();
    await hub.stop();
  });

  it("more than MAX_INFLIGHT requests in flight get OVERLOADED; a duplicate in-flight id is refused", async () => {
    const { target } = await client.call<{ target: string }>("tabs.open", {});
    const slow = (id: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "evaluate",
        params: { target, expression: "new Promise(r => setTimeout(() => r(id), 400))".replace("id", JSON.stringify(id)) },
        id,
      });
    client.sendRaw(slow("a"));
    client.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "ping", id: "a" }));
    client.sendRaw(slow("b"));
    client.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "ping", id: "c" }));
    const frames = (await Promise.all([1, 2, 3, 4].map(() => client.nextFrame()))) as {
      id: string;
      result?: { value: string };
      error?: { code: number; message: string };
    }[];
    expect(frames.map((f) => [f.id, f.error?.code ?? f.result?.value])).to.deep.equal([
      ["a", -32600],
      ["c", -32011],
      ["a", "a"],
      ["b", "b"],
    ]);
    expect(frames[0]?.error?.message).to.match(/still in flight/);
    expect(await client.call("ping")).to.have.property("pong", true);
    await client.call("tabs.close", { target });
  });
});
