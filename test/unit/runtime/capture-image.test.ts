import { expect } from "chai";
import { Budget } from "../../../src/budget.js";
import { ProtocolError } from "../../../src/cdp/callback-registry.js";
import type { TabSession } from "../../../src/cdp/tab-session.js";
import { HubError } from "../../../src/errors.js";
import { captureImage } from "../../../src/runtime/capture-screenshot.js";

const uncapturable = (): ProtocolError =>
  new ProtocolError("Page.captureScreenshot", { code: -32000, message: "Unable to capture screenshot" });

/** A tab whose captures fail with each of `failures` in turn, then give "IMAGE"; counts the captures. */
function fakeTab(failures: Error[], closedBy: HubError | null = null): { tab: Pick<TabSession, "send" | "cdp">; captures: () => number } {
  let captures = 0;
  const send = (): Promise<{ data: string }> => {
    const failure = failures[captures++];
    return failure ? Promise.reject(failure) : Promise.resolve({ data: "IMAGE" });
  };
  return { tab: { send, cdp: { closedBy } } as unknown as Pick<TabSession, "send" | "cdp">, captures: () => captures };
}

const params = { format: "png" as const };

describe("captureImage", () => {
  let budget: Budget;
  beforeEach(() => (budget = new Budget(5_000)));
  afterEach(() => budget.dispose());

  it("captures again after Chrome's 'Unable to capture screenshot'", async () => {
    const fake = fakeTab([uncapturable(), uncapturable()]);
    expect(await captureImage(fake.tab, params, budget)).to.equal("IMAGE");
    expect(fake.captures()).to.equal(3);
  });

  it("gives up after 3 captures with PAGE_NAVIGATED, never an internal error", async () => {
    const fake = fakeTab([uncapturable(), uncapturable(), uncapturable(), uncapturable()]);
    const error = await captureImage(fake.tab, params, budget).then(
      () => null,
      (e: unknown) => e,
    );
    expect(fake.captures()).to.equal(3);
    expect(error).to.be.instanceOf(HubError);
    expect((error as HubError).toWire().code).to.equal(-32013);
  });

  it("a closed tab is its close reason at once; other failures pass on at once", async () => {
    const closed = new HubError("TARGET_CLOSED", "closed");
    const onClosed = fakeTab([uncapturable()], closed);
    expect(
      await captureImage(onClosed.tab, params, budget).then(
        () => null,
        (e: unknown) => e,
      ),
    ).to.equal(closed);
    const other = new ProtocolError("Page.captureScreenshot", { code: -32602, message: "Invalid parameters" });
    const onOther = fakeTab([other]);
    expect(
      await captureImage(onOther.tab, params, budget).then(
        () => null,
        (e: unknown) => e,
      ),
    ).to.equal(other);
    expect([onClosed.captures(), onOther.captures()]).to.deep.equal([1, 1]);
  });
});
