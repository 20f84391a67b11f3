import { expect } from "chai";
import { ConnectionClosedError, TabwireClient, TabwireError } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { sharedHub, startTestHub } from "../support/test-hub.js";

describe("the TypeScript client (real hub, real Chromium)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let fixtures: FixtureServer;

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
  });
  after(async () => fixtures.close());

  it("makes typed calls and hands notifications to listeners", async () => {
    const client = await TabwireClient.connect({ url: hub.url });
    const { target } = await client.call("tabs.open", { url: fixtures.url("index.html") });
    expect(await client.evaluate({ target, expression: "document.title" })).to.deep.equal({ type: "string", value: "Fixture Home" });
    const logged = new Promise<string>((resolve) => client.on("console.message", (message) => resolve(message.text)));
    await client.call("console.subscribe", { target });
    await client.evaluate({ target, expression: "console.log('to the client')" });
    expect(await logged).to.equal("to the client");
    const error = await client.evaluate({ target, expression: "nope" }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(TabwireError);
    expect((error as TabwireError).code).to.equal(-32000);
    await client.call("tabs.close", { target });
    await client.close();
  });

  it("a call aborted by its AbortSignal rejects at once and the hub stops the evaluation", async () => {
    const client = await TabwireClient.connect({ url: hub.url });
    const { target } = await client.call("tabs.open", { url: fixtures.url("index.html") });
    const controller = new AbortController();
    const spinning = client.evaluate(
      { target, expression: "fetch('/mark?name=client-abort'); while (true) {}", timeoutMs: 20_000 },
      { signal: controller.signal },
    );
    await fixtures.waitForMark("client-abort");
    const settled = spinning.then(
      () => "resolved",
      (error: unknown) => error,
    );
    controller.abort();
    // At once: before the event loop reads any socket again (the hub's answer would come over one), however slow the machine.
    const beforeAnyIo = await Promise.race([settled, new Promise((resolve) => setImmediate(() => resolve("still pending")))]);
    expect((beforeAnyIo as TabwireError).code).to.equal(-32010);
    // Had the hub not stopped the loop, the tab would spin until the 20 s budget, past this call's own.
    expect(await client.evaluate({ target, expression: "1 + 1", timeoutMs: 10_000 })).to.deep.equal({ type: "number", value: 2 });
    await client.call("tabs.close", { target });
    await client.close();
  });

  it("rejects pending calls with ConnectionClosedError when the hub goes, and reconnects when it is back", async () => {
    const first = await startTestHub();
    const client = await TabwireClient.connect({ url: first.url });
    const disconnected = new Promise<void>((resolve) => client.on("disconnected", resolve));
    const reconnected = new Promise<void>((resolve) => client.on("reconnected", resolve));
    const { target } = await client.call("tabs.open", {});
    const pending = client.evaluate({ target, expression: "new Promise(() => {})", timeoutMs: 20_000 }).catch((e: unknown) => e);
    await client.call("ping", {});
    await first.stop();
    expect(await pending).to.be.instanceOf(ConnectionClosedError);
    await disconnected;
    const second = await startTestHub({ PORT: String(first.port) });
    try {
      await reconnected;
      expect((await client.call("ping", {})).pong).to.equal(true);
    } finally {
      await client.close();
      await second.stop();
    }
  });

  it("fails to connect with ConnectionClosedError naming the address when no hub listens", async () => {
    const error = await TabwireClient.connect({ url: "ws://127.0.0.1:1", reconnect: false }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConnectionClosedError);
    expect((error as Error).message).to.match(/cannot connect to the hub at http:\/\/127\.0\.0\.1:1|ws:\/\/127\.0\.0\.1:1/);
  });
});
