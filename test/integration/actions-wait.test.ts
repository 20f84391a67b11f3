import { expect } from "chai";
import { TabwireError } from "../../src/client/index.js";
import { ErrorCode } from "../../src/errors.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { pageSuite } from "../support/page-suite.js";

interface PageEvent {
  type: string;
  isTrusted: boolean;
}

// Longer than the test's own timeout: a call given it that waited for its element would fail the test, not answer.
const LONGER_THAN_THE_TEST_MS = 120_000;

const ADD_LATE_INPUT = `setTimeout(() => {
  const input = document.createElement("input");
  input.id = "late-input";
  document.getElementById("late").append(input);
}, 300)`;

describe("actions wait for a selector to match, within their budget (real hub, real Chromium)", function () {
  this.timeout(30_000);
  const suite = pageSuite();
  let tab: OpenedTab;
  const read = async <T>(expression: string): Promise<T> => (await evaluate(suite.client, tab.target, expression)).value as T;
  const failureOf = async (call: Promise<unknown>): Promise<TabwireError> => {
    const error = await call.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).to.be.instanceOf(TabwireError);
    return error as TabwireError;
  };

  beforeEach(async () => {
    tab = await openTab(suite.client, suite.fixtures.url("actions.html"));
  });
  afterEach(async () => closeTab(suite.client, tab.target));

  it("a late element clicked by selector: a button added 300 ms after the call starts is clicked and its handler runs", async () => {
    await evaluate(suite.client, tab.target, "addLate(300)");
    const answer = await suite.client.call("click", { target: tab.target, selector: "#late-button", timeoutMs: 10_000 });
    // The button came while the action ran: it is part of what changed.
    expect(answer.changes?.diff).to.match(/^\+ button "Late" \[ref=e\d+\]$/m);
    expect(await read<PageEvent[]>("events")).to.deep.equal([{ type: "late", isTrusted: true }]);
  });

  it("fill waits for an input that appears late, and fillForm for a late field", async () => {
    await evaluate(suite.client, tab.target, ADD_LATE_INPUT);
    await suite.client.call("fill", { target: tab.target, selector: "#late-input", value: "hello", timeoutMs: 10_000 });
    expect(await read<string>("document.getElementById('late-input').value")).to.equal("hello");
    await evaluate(suite.client, tab.target, "document.getElementById('late-input').remove()");
    await evaluate(suite.client, tab.target, ADD_LATE_INPUT);
    const fields = [{ selector: "#late-input", value: "again" }];
    await suite.client.call("fillForm", { target: tab.target, fields, timeoutMs: 10_000 });
    expect(await read<string>("document.getElementById('late-input').value")).to.equal("again");
  });

  it("a selector that never matches is TIMEOUT with reason 'not found' when the budget ends; one that is not CSS is INVALID_PARAMS", async () => {
    const never = await failureOf(suite.client.call("click", { target: tab.target, selector: "#never-there", timeoutMs: 500 }));
    expect([never.code, never.data]).to.deep.equal([ErrorCode.TIMEOUT, { timeoutMs: 500, terminated: false, reason: "not found" }]);
    expect(never.message).to.match(/no element matched the selector "#never-there" within 500 ms/);
    const fill = await failureOf(suite.client.call("fill", { target: tab.target, selector: "#never-there", value: "x", timeoutMs: 400 }));
    expect(fill.data).to.deep.equal({ timeoutMs: 400, terminated: false, reason: "not found" });
    const invalid = await failureOf(suite.client.call("click", { target: tab.target, selector: "#[", timeoutMs: LONGER_THAN_THE_TEST_MS }));
    expect(invalid.code).to.equal(ErrorCode.INVALID_PARAMS);
  });

  it("the page navigating while a click waits: the selector is looked for again in the new document, and clicked there", async () => {
    await evaluate(suite.client, tab.target, `setTimeout(() => location.assign("actions.html?late=300"), 200)`);
    await suite.client.call("click", { target: tab.target, selector: "#late-button", timeoutMs: 10_000 });
    expect(await read<string>("location.search")).to.equal("?late=300");
    expect(await read<PageEvent[]>("events")).to.deep.equal([{ type: "late", isTrusted: true }]);
  });

  it("a stale ref is NODE_NOT_FOUND at once, not waited for: after a reload, and when its element was removed", async () => {
    const refOf = async (name: string): Promise<string> => {
      const { text } = await suite.client.call("snapshot", { target: tab.target });
      const ref = new RegExp(`button "${name}" \\[ref=(e\\d+)\\]`).exec(text)?.[1];
      expect(ref, text).to.be.a("string");
      return ref as string;
    };
    const removed = await refOf("Press me");
    await evaluate(suite.client, tab.target, "document.getElementById('btn').remove()");
    const gone = await failureOf(suite.client.call("click", { target: tab.target, ref: removed, timeoutMs: LONGER_THAN_THE_TEST_MS }));
    expect(gone.code).to.equal(ErrorCode.NODE_NOT_FOUND);
    const beforeReload = await refOf("Disabled");
    await suite.client.call("navigate", { target: tab.target, url: suite.fixtures.url("actions.html") });
    const stale = await failureOf(
      suite.client.call("click", { target: tab.target, ref: beforeReload, timeoutMs: LONGER_THAN_THE_TEST_MS }),
    );
    expect(stale.code).to.equal(ErrorCode.NODE_NOT_FOUND);
  });

  it("callOn keeps its contract: a selector that matches nothing is NODE_NOT_FOUND at once", async () => {
    await evaluate(suite.client, tab.target, "addLate(5000)");
    const call = suite.client.call("callOn", {
      target: tab.target,
      selector: "#late-button",
      functionDeclaration: "(el) => el.id",
      timeoutMs: LONGER_THAN_THE_TEST_MS,
    });
    expect((await failureOf(call)).code).to.equal(ErrorCode.NODE_NOT_FOUND);
  });
});
