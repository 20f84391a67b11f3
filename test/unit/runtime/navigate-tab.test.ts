import { expect } from "chai";
import { EventEmitter } from "node:events";
import { Budget } from "../../../src/budget.js";
import type { TabSession } from "../../../src/cdp/tab-session.js";
import { HubError } from "../../../src/errors.js";
import { navigateTab } from "../../../src/runtime/navigate-tab.js";

/** A tab whose Page.navigate answers with a loader id; `closeWithAnswer` closes its session in the same tick. */
function fakeTab(closeWithAnswer: HubError | null): { tab: TabSession; cdp: EventEmitter & { closedBy: HubError | null } } {
  const cdp = Object.assign(new EventEmitter(), { closedBy: null as HubError | null });
  const send = (): Promise<{ frameId: string; loaderId: string }> => {
    const answer = Promise.resolve({ frameId: "F", loaderId: "L" });
    if (closeWithAnswer) {
      // As when Chrome's answer and its detach arrive in one read: the session closes before the navigate goes on.
      queueMicrotask(() => {
        cdp.closedBy = closeWithAnswer;
        cdp.emit("closed", closeWithAnswer);
      });
    }
    return answer;
  };
  const tab = { cdp, send, listen: () => () => {} } as unknown as TabSession;
  return { tab, cdp };
}

describe("navigateTab", () => {
  it("fails with the close reason when the session closed before the wait for load began", async () => {
    const closed = new HubError("TARGET_CLOSED", "the tab closed");
    const { tab } = fakeTab(closed);
    const budget = new Budget(2_000);
    try {
      const error = await navigateTab(tab, { url: "http://127.0.0.1:1/", waitUntil: "load" }, budget).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.equal(closed);
      expect(budget.isOver, "answered before the budget ended").to.equal(false);
    } finally {
      budget.dispose();
    }
  });

  it("leaves no close listener on the session after a wait that ran out of budget", async () => {
    const { tab, cdp } = fakeTab(null);
    const budget = new Budget(20);
    try {
      const error = await navigateTab(tab, { url: "http://127.0.0.1:1/", waitUntil: "load" }, budget).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.have.property("errorName", "TIMEOUT");
      expect(cdp.listenerCount("closed")).to.equal(0);
    } finally {
      budget.dispose();
    }
  });
});
