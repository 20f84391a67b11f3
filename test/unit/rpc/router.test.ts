import { expect } from "chai";
import { HubError } from "../../../src/errors.js";
import { InflightTable } from "../../../src/rpc/inflight.js";
import type { CallContext, ConnectionState, MethodDefinition } from "../../../src/rpc/method.js";
import { loadOpenRpc, ParamsValidator } from "../../../src/rpc/params-validator.js";
import { Router } from "../../../src/rpc/router.js";

type Services = { name: string };
type Method = MethodDefinition<Services>;

/** A connection with no socket: what the router sees of a caller. */
function fakeConnection(): ConnectionState {
  return { id: "c1", scope: null, peer: "test", inflight: new InflightTable(), closed: new AbortController().signal, notify: () => true };
}

/** A method under a real name of the document (so its params are checked), with a handler of the test's own. */
function method(name: string, run: (params: Record<string, unknown>, call: CallContext<Services>) => Promise<unknown>): Method {
  return { name, traits: { runs: "here", needs: "connection" }, run: (params, call) => run(params as Record<string, unknown>, call) };
}

function routerOf(methods: Method[], limits: { maxInflight?: number } = {}): Router<Services> {
  return new Router<Services>({
    methods,
    services: { name: "services" },
    validator: new ParamsValidator(loadOpenRpc()),
    maxBatch: 4,
    maxInflight: limits.maxInflight ?? 8,
    ratePerSec: 0,
    defaultTimeoutMs: 30_000,
    maxTimeoutMs: 600_000,
  });
}

async function answer(router: Router<Services>, frame: unknown, connection = fakeConnection()): Promise<unknown> {
  const text = await router.handleFrame(JSON.stringify(frame), connection);
  return text === null ? null : JSON.parse(text);
}

describe("Router (no transport: frames in, answers out)", () => {
  it("hands a handler its validated params with defaults filled in, the services and a budget from timeoutMs", async () => {
    let seen: { params: Record<string, unknown>; services: Services; remaining: number } | null = null;
    const router = routerOf([
      method("evaluate", async (params, call) => {
        seen = { params, services: call.services, remaining: call.budget.remainingMs() };
        return { type: "number", value: 2 };
      }),
    ]);
    const reply = await answer(router, {
      jsonrpc: "2.0",
      id: 1,
      method: "evaluate",
      params: { target: "a:b", expression: "1+1", timeoutMs: 5_000 },
    });
    expect(reply).to.deep.equal({ jsonrpc: "2.0", id: 1, result: { type: "number", value: 2 } });
    expect(seen!.params).to.deep.include({
      target: "a:b",
      expression: "1+1",
      awaitPromise: true,
      isolate: true,
      args: [],
      captureConsole: true,
    });
    expect(seen!.services.name).to.equal("services");
    expect(seen!.remaining).to.be.within(4_000, 5_000);
  });

  it("answers an unknown method -32601, bad params -32602 with where, and never runs the handler", async () => {
    let ran = 0;
    const router = routerOf([method("evaluate", async () => (ran++, {}))]);
    const unknown = (await answer(router, { jsonrpc: "2.0", id: 1, method: "evaluat", params: {} })) as { error: { code: number } };
    expect(unknown.error.code).to.equal(-32601);
    const bad = (await answer(router, { jsonrpc: "2.0", id: 2, method: "evaluate", params: { target: "a:b", expression: 7 } })) as {
      error: { code: number; data: { errors: { path: string }[] } };
    };
    expect(bad.error.code).to.equal(-32602);
    expect(bad.error.data.errors.map((e) => e.path)).to.include("/expression");
    expect(ran).to.equal(0);
  });

  it("turns a HubError into its code and message, and any other throw into -32603 with a generic message", async () => {
    const router = routerOf([
      method("ping", async () => {
        throw new HubError("TARGET_NOT_FOUND", "no tab a:b; list tabs with tabs.list");
      }),
      method("clients.list", async () => {
        throw new Error("a bug's own details");
      }),
    ]);
    expect(await answer(router, { jsonrpc: "2.0", id: 1, method: "ping" })).to.deep.equal({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32002, message: "no tab a:b; list tabs with tabs.list" },
    });
    const internal = (await answer(router, { jsonrpc: "2.0", id: 2, method: "clients.list" })) as {
      error: { code: number; message: string };
    };
    expect(internal.error.code).to.equal(-32603);
    expect(internal.error.message).to.not.include("own details");
  });

  it("answers a call past its budget with TIMEOUT even when the handler never settles", async () => {
    const router = routerOf([method("evaluate", () => new Promise(() => {}))]);
    const reply = (await answer(router, {
      jsonrpc: "2.0",
      id: 1,
      method: "evaluate",
      params: { target: "a:b", expression: "x", timeoutMs: 50 },
    })) as { error: { code: number } };
    expect(reply.error.code).to.equal(-32001);
  });

  it("cancels a running request through the connection's in-flight table, which then answers CANCELLED", async () => {
    const connection = fakeConnection();
    const router = routerOf([
      method(
        "evaluate",
        (_params, call) => new Promise((_resolve, reject) => call.budget.onEnd(() => reject(call.budget.reason as Error))),
      ),
    ]);
    const running = answer(
      router,
      { jsonrpc: "2.0", id: "slow", method: "evaluate", params: { target: "a:b", expression: "x" } },
      connection,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(connection.inflight.cancel("slow", new HubError("CANCELLED", "cancelled by the caller"))).to.equal(true);
    expect(((await running) as { error: { code: number } }).error.code).to.equal(-32010);
    expect(connection.inflight.size).to.equal(0);
  });

  it("refuses a request past MAX_INFLIGHT with OVERLOADED, and answers the one running when it ends", async () => {
    const connection = fakeConnection();
    let release = (): void => {};
    const held = new Promise<object>((resolve) => (release = () => resolve({ pong: true, time: 1 })));
    const router = routerOf([method("ping", () => held)], { maxInflight: 1 });
    const first = answer(router, { jsonrpc: "2.0", id: 1, method: "ping" }, connection);
    await new Promise((resolve) => setImmediate(resolve));
    expect(
      ((await answer(router, { jsonrpc: "2.0", id: 2, method: "ping" }, connection)) as { error: { code: number } }).error.code,
    ).to.equal(-32011);
    release();
    expect(await first).to.deep.include({ id: 1, result: { pong: true, time: 1 } });
  });

  it("answers a batch in one array, leaves notifications unanswered, and a batch of notifications with nothing", async () => {
    const router = routerOf([method("ping", async () => ({ pong: true, time: 1 }))]);
    const batch = (await answer(router, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "nope" },
    ])) as { id: number }[];
    expect(batch.map((item) => item.id)).to.deep.equal([1, 2]);
    expect(await answer(router, [{ jsonrpc: "2.0", method: "ping" }])).to.equal(null);
  });

  it("refuses at start a method the OpenRPC document does not describe", () => {
    expect(() => routerOf([method("no.such.method", async () => ({}))])).to.throw(/missing from the OpenRPC document/);
  });
});
