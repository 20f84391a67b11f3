import { expect } from "chai";
import { DrainGate } from "../../../src/rpc/drain-gate.js";
import { InflightTable } from "../../../src/rpc/inflight.js";
import type { ConnectionState, MethodDefinition } from "../../../src/rpc/method.js";
import { loadOpenRpc, ParamsValidator } from "../../../src/rpc/params-validator.js";
import { Router } from "../../../src/rpc/router.js";

type Services = Record<string, never>;
const OVERLOADED = -32011;

function fakeConnection(): ConnectionState {
  return { id: "c1", scope: null, peer: "test", inflight: new InflightTable(), closed: new AbortController().signal, notify: () => true };
}

/** A router whose evaluate waits until the test releases it, and whose cancel (exempt from the drain) answers at once. */
function drainingRouter(gate: DrainGate, validator: ParamsValidator): { router: Router<Services>; release: () => void } {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const methods: MethodDefinition<Services>[] = [
    { name: "evaluate", traits: { runs: "tab", needs: "script" }, run: async () => held.then(() => ({ type: "number", value: 1 })) },
    { name: "tabs.list", traits: { runs: "here", needs: "read" }, run: async () => ({ tabs: [] }) },
    { name: "cancel", traits: { runs: "here", needs: "connection", unlimited: true }, run: async () => ({ cancelled: false }) },
  ];
  const router = new Router<Services>({
    methods,
    services: {},
    validator,
    ...{ maxBatch: 8, maxInflight: 8, ratePerSec: 0, defaultTimeoutMs: 30_000, maxTimeoutMs: 600_000 },
    observer: gate.observe(),
    drain: gate,
  });
  return { router, release };
}

async function answer(router: Router<Services>, frame: unknown, connection: ConnectionState): Promise<unknown> {
  const text = await router.handleFrame(JSON.stringify(frame), connection);
  return text === null ? null : JSON.parse(text);
}

describe("DrainGate (the router while the hub drains)", () => {
  // Compiling the document's schemas is the slow part: once for the file.
  let validator: ParamsValidator;
  before(() => {
    validator = new ParamsValidator(loadOpenRpc());
  });

  it("refuses the requests of new frames with OVERLOADED and data.draining, drops notifications, lets cancel and the running call finish", async () => {
    const gate = new DrainGate();
    const { router, release } = drainingRouter(gate, validator);
    const connection = fakeConnection();
    const running = answer(router, { jsonrpc: "2.0", id: 1, method: "evaluate", params: { target: "a:b", expression: "1" } }, connection);
    expect(gate.running).to.equal(1);
    const deadline = gate.begin(5_000);
    expect(gate.isDraining).to.equal(true);

    const refused = (await answer(router, { jsonrpc: "2.0", id: 2, method: "tabs.list" }, connection)) as {
      error: { code: number; data: unknown };
    };
    expect(refused.error.code).to.equal(OVERLOADED);
    expect(refused.error.data).to.deep.equal({ draining: true, retryAfterMs: 1_000, deadline });
    expect(await answer(router, { jsonrpc: "2.0", method: "tabs.list" }, connection), "a notification gets nothing").to.equal(null);
    const batch = (await answer(
      router,
      [
        { jsonrpc: "2.0", id: 3, method: "tabs.list" },
        { jsonrpc: "2.0", method: "tabs.list" },
        { jsonrpc: "2.0", id: 4, method: "cancel", params: { id: 1 } },
      ],
      connection,
    )) as { id: number; error?: { code: number }; result?: unknown }[];
    expect(batch.map((item) => [item.id, item.error?.code ?? item.result])).to.deep.equal([
      [3, OVERLOADED],
      [4, { cancelled: false }],
    ]);

    let idle = false;
    const drained = gate.whenIdle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle, "a call still runs").to.equal(false);
    release();
    expect(await running).to.deep.equal({ jsonrpc: "2.0", id: 1, result: { type: "number", value: 1 } });
    await drained;
    expect(gate.running).to.equal(0);
  });

  it("lets the hub's own calls (invoke) run: a request that came in before the drain may go on calling methods", async () => {
    const gate = new DrainGate();
    const { router } = drainingRouter(gate, validator);
    gate.begin(5_000);
    expect(await router.invoke("tabs.list", {}, fakeConnection())).to.deep.equal({ tabs: [] });
  });
});
