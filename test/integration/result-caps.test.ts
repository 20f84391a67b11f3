import { expect } from "chai";
import { TabwireError, type TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { openTab } from "../support/tabs.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

const TOKEN_A = "caps-tenant-a-token";
const TOKEN_B = "caps-tenant-b-token";
const MAX_RESULT_BYTES = 1024 * 1024;
// About 1 GB as JSON: four references to one 256 MiB string.
const GIGABYTE_VALUE = "(() => { const s = 'x'.repeat(256 * 2 ** 20); return [s, s, s, s]; })()";

describe("result caps: what one tenant's huge values cost the hub and the other tenants (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let a: TabwireClient;
  let b: TabwireClient;
  let tabA: string;
  let tabB: string;

  before(async () => {
    hub = await startTestHub({
      HUB_TOKENS: `${TOKEN_A}:tenantA,${TOKEN_B}:tenantB`,
      AUTH_KEY: "caps-agent-key-1",
      MAX_RESULT_BYTES: String(MAX_RESULT_BYTES),
    });
    a = await connectClient(hub, { token: TOKEN_A });
    b = await connectClient(hub, { token: TOKEN_B });
    tabA = (await openTab(a, "about:blank")).target;
    tabB = (await openTab(b, "about:blank")).target;
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await hub?.stop();
  });

  it("a 1 GB value is SERIALIZATION_FAILED in the page, while the other tenant's call succeeds and the hub's heap stays small", async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const [huge, other] = await Promise.allSettled([
      a.evaluate({ target: tabA, expression: GIGABYTE_VALUE, timeoutMs: 50_000 }),
      b.evaluate({ target: tabB, expression: "document.title = 'b'; 6 * 7" }),
    ]);
    expect(other).to.deep.include({ status: "fulfilled" });
    expect((other as PromiseFulfilledResult<{ value: unknown }>).value.value).to.equal(42);
    const error = (huge as PromiseRejectedResult).reason as TabwireError;
    expect(error).to.be.instanceOf(TabwireError);
    expect(error.code).to.equal(-32005);
    expect(error.message).to.match(
      /^the result is too large to write as JSON in the page \(RangeError: Invalid string length\); return less/,
    );
    const grew = process.memoryUsage().heapUsed - heapBefore;
    expect(grew, `the hub's heap grew by ${Math.round(grew / 2 ** 20)} MiB`).to.be.below(64 * 2 ** 20);
    expect((await a.evaluate({ target: tabA, expression: "1 + 1" })).value, "tenant A's tab still answers").to.equal(2);
  });

  it("an array past MAX_RESULT_BYTES is cut in the page to its JSON's first MAX_RESULT_BYTES bytes; maxSize asks for more", async () => {
    const expression = "Array.from({ length: 3 }, (_, i) => String(i).repeat(600 * 1024))";
    const cut = await a.evaluate({ target: tabA, expression });
    expect(cut.truncated).to.equal(true);
    expect(cut.value).to.be.a("string").with.length(MAX_RESULT_BYTES);
    expect((cut.value as string).startsWith('["000')).to.equal(true);
    const whole = await a.evaluate({ target: tabA, expression, maxSize: 4 * MAX_RESULT_BYTES });
    expect(whole.truncated).to.equal(undefined);
    expect((whole.value as string[]).map((part) => part.length)).to.deep.equal([600 * 1024, 600 * 1024, 600 * 1024]);
  });

  it("a string past MAX_RESULT_BYTES is cut too, and callOn is held to the same cap", async () => {
    const string = await a.evaluate({ target: tabA, expression: "'y'.repeat(2 * 1024 * 1024)" });
    expect(string).to.include({ truncated: true });
    expect((string.value as string).length).to.equal(MAX_RESULT_BYTES);
    const called = await a.call("callOn", {
      target: tabA,
      functionDeclaration: "function () { return { big: 'z'.repeat(2 * 1024 * 1024) }; }",
    });
    expect(called).to.include({ truncated: true });
    expect((called.value as string).length).to.equal(MAX_RESULT_BYTES);
  });

  it("maxSize above 64 MiB is INVALID_PARAMS at /maxSize", async () => {
    const error = (await a.evaluate({ target: tabA, expression: "1", maxSize: 64 * 2 ** 20 + 1 }).catch((e: unknown) => e)) as TabwireError;
    expect(error.code).to.equal(-32602);
    expect((error.data as { errors: { path: string }[] }).errors.map((e) => e.path)).to.deep.equal(["/maxSize"]);
  });

  it("content past MAX_RESULT_BYTES is cut in the page, with the full length and truncated", async () => {
    await a.evaluate({ target: tabA, expression: "document.body.textContent = 'w'.repeat(3 * 1024 * 1024); 0" });
    const page = await a.call("content", { target: tabA, format: "text" });
    expect(page.truncated).to.equal(true);
    expect(page.content.length).to.equal(MAX_RESULT_BYTES);
    expect(page.length).to.equal(3 * 1024 * 1024);
  });
});
