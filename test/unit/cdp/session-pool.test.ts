import { expect } from "chai";
import { SessionPool } from "../../../src/cdp/session-pool.js";
import { Budget } from "../../../src/budget.js";
import { FakeBrowser } from "../support/fake-browser.js";

describe("SessionPool (fake Chrome: one session per tab, reused, dropped, capped)", () => {
  let budget: Budget;
  beforeEach(() => (budget = new Budget(5_000)));
  afterEach(() => budget.dispose());

  it("attaches a tab once however many calls ask at once, and every later call reuses the session", async () => {
    const browser = new FakeBrowser();
    const pool = new SessionPool(browser.asBrowser(), { maxSessions: 8, dialogPolicy: "dismiss" });
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
    const [a, b] = await Promise.all([pool.acquire("T1", budget), pool.acquire("T1", budget)]);
    const c = await pool.acquire("T1", budget);
    expect(a).to.equal(b).and.to.equal(c);
    expect(browser.chrome.commands("Target.attachToTarget")).to.have.length(1);
    expect(browser.chrome.commands("Runtime.enable").map((command) => command.sessionId)).to.deep.equal([a.cdp.id]);
    expect(pool.stats()).to.include({ attaches: 1, live: 1 });
  });

  it("fails a running command of a tab that closes with TARGET_CLOSED, and attaches afresh when it is back", async () => {
    const browser = new FakeBrowser();
    const pool = new SessionPool(browser.asBrowser(), { maxSessions: 8, dialogPolicy: "dismiss" });
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
    const tab = await pool.acquire("T1", budget);
    browser.chrome.answer = (command) => (command.method === "Runtime.evaluate" ? null : {});
    const running = tab.send("Runtime.evaluate", { expression: "1" }).catch((error: unknown) => error);
    browser.close("T1");
    expect(await running).to.include({ errorName: "TARGET_CLOSED" });
    expect(pool.stats().live).to.equal(0);
    browser.chrome.answer = () => ({});
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
    expect(await pool.acquire("T1", budget)).to.not.equal(tab);
  });

  it("keeps at most maxSessions, detaching the least recently used session no call holds", async () => {
    const browser = new FakeBrowser();
    const pool = new SessionPool(browser.asBrowser(), { maxSessions: 2, dialogPolicy: "dismiss" });
    const first = new Budget(5_000);
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
    const t1 = await pool.acquire("T1", first);
    first.dispose();
    browser.open({ tabId: "T2", url: "about:blank", title: "" });
    const t2 = await pool.acquire("T2", budget);
    browser.open({ tabId: "T3", url: "about:blank", title: "" });
    const t3 = await pool.acquire("T3", budget);
    expect(pool.stats().live).to.equal(2);
    expect([t1.cdp.isClosed, t2.cdp.isClosed, t3.cdp.isClosed]).to.deep.equal([true, false, false]);
    expect(browser.chrome.commands("Target.detachFromTarget").map((command) => command.params?.sessionId)).to.deep.equal([t1.cdp.id]);
  });

  it("answers a call whose tab never attaches within its budget with the budget's TIMEOUT", async () => {
    const browser = new FakeBrowser();
    const pool = new SessionPool(browser.asBrowser(), { maxSessions: 8, dialogPolicy: "dismiss" });
    browser.chrome.answer = (command) => (command.method === "Runtime.enable" ? null : {});
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
    const short = new Budget(50);
    try {
      expect(await pool.acquire("T1", short).catch((error: unknown) => error)).to.include({ errorName: "TIMEOUT" });
    } finally {
      short.dispose();
    }
  });
});
