import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { rpcFailure } from "../support/rpc-client.js";
import { connect, sharedHub, startTestHub } from "../support/test-hub.js";

const RATE = 10;
const OVERLOADED = -32011;

describe("RATE_LIMIT_PER_SEC (real hubs)", function () {
  this.timeout(40_000);
  /** RATE_LIMIT_PER_SEC=10, and =0. */
  let limited: Hub;
  let zero: Hub;

  before(async () => {
    [limited, zero] = await Promise.all([startTestHub({ RATE_LIMIT_PER_SEC: String(RATE) }), startTestHub({ RATE_LIMIT_PER_SEC: "0" })]);
  });
  after(async () => {
    await Promise.all([limited?.stop(), zero?.stop()]);
  });

  type Answer = { id: number; result?: { pong: boolean }; error?: { code: number; data?: { retryAfterMs?: unknown } } };
  const pings = (count: number, from = 0): string =>
    JSON.stringify(Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", method: "ping", id: from + i })));
  const outcome = (answers: Answer[]): (number | string)[] => answers.sort((a, b) => a.id - b.id).map((a) => a.error?.code ?? "ok");

  it("a connection may start N requests at once, each batch item counting; the rest get OVERLOADED with data.retryAfterMs, after which it may go on", async () => {
    const client = await connect(limited);
    try {
      client.sendRaw(pings(RATE + 5));
      const answers = (await client.nextFrame()) as Answer[];
      expect(outcome(answers)).to.deep.equal([...Array<string>(RATE).fill("ok"), ...Array<number>(5).fill(OVERLOADED)]);
      const retryAfterMs = answers.find((a) => a.error)?.error?.data?.retryAfterMs;
      expect(retryAfterMs).to.be.a("number").within(1, 1_000);
      const refused = await rpcFailure(client.call("ping"));
      expect(refused.code).to.equal(OVERLOADED);
      // Waiting as long as the hub says is the behaviour under test, not a wait for an event.
      await new Promise((resolve) => setTimeout(resolve, (refused.data as { retryAfterMs: number }).retryAfterMs));
      expect(await client.call("ping")).to.have.property("pong", true);
    } finally {
      await client.close();
    }
  });

  it("cancel is never limited: a connection over its rate can still stop its work", async () => {
    const client = await connect(limited);
    try {
      client.sendRaw(pings(RATE + 1));
      expect(outcome((await client.nextFrame()) as Answer[]).at(-1)).to.equal(OVERLOADED);
      const cancels = JSON.stringify(
        Array.from({ length: RATE }, (_, i) => ({ jsonrpc: "2.0", method: "cancel", id: 100 + i, params: { id: i } })),
      );
      client.sendRaw(cancels);
      const answers = (await client.nextFrame()) as { result?: { cancelled: boolean } }[];
      expect(answers.map((a) => a.result?.cancelled)).to.deep.equal(Array<boolean>(RATE).fill(false));
    } finally {
      await client.close();
    }
  });

  it("each connection, an agent's too, has a bucket of its own", async () => {
    const first = await connect(limited);
    const second = await connect(limited);
    const agent = await TestAgent.connect({ url: `${limited.url}/agent`, clientId: "busy:t1" });
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      first.sendRaw(pings(RATE));
      expect(outcome((await first.nextFrame()) as Answer[])).to.deep.equal(Array<string>(RATE).fill("ok"));
      second.sendRaw(pings(RATE));
      expect(outcome((await second.nextFrame()) as Answer[])).to.deep.equal(Array<string>(RATE).fill("ok"));
      const agentCalls = await Promise.all(
        Array.from({ length: RATE + 2 }, () =>
          agent.call("ping").then(
            () => "ok",
            (e: { code: number }) => e.code,
          ),
        ),
      );
      expect(agentCalls.filter((c) => c === "ok")).to.have.length(RATE);
      expect(agentCalls.filter((c) => c === OVERLOADED)).to.have.length(2);
    } finally {
      await agent.close();
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("0 or unset turns it off", async () => {
    for (const hub of [zero, await sharedHub()]) {
      const client = await connect(hub);
      try {
        client.sendRaw(pings(100));
        expect(outcome((await client.nextFrame()) as Answer[])).to.deep.equal(Array<string>(100).fill("ok"));
        const singles = await Promise.all(Array.from({ length: 50 }, () => client.call("ping").then(() => "ok")));
        expect(singles).to.have.length(50);
      } finally {
        await client.close();
      }
    }
  });
});
