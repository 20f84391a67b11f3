import { expect } from "chai";
import { TabUpdates } from "../../../src/clients/tab-updates.js";

const INTERVAL_MS = 30;

/** A TabUpdates whose news are recorded, with a promise of the next one. */
function recorder(): { updates: TabUpdates; sent: { tabId: string; url: string; title: string }[]; next: () => Promise<void> } {
  const latest = new Map<string, { url: string; title: string }>();
  const sent: { tabId: string; url: string; title: string }[] = [];
  let wake: () => void = () => {};
  const updates = new TabUpdates({
    intervalMs: INTERVAL_MS,
    send: (tabId) => {
      sent.push({ tabId, ...(latest.get(tabId) ?? { url: "", title: "" }) });
      wake();
    },
  });
  const change = updates.changed.bind(updates);
  updates.changed = (tabId, shown) => {
    latest.set(tabId, shown);
    change(tabId, shown);
  };
  return { updates, sent, next: () => new Promise((resolve) => (wake = resolve)) };
}

describe("TabUpdates: at most one tab.updated per tab per interval, with the latest values", () => {
  it("sends a tab's first change at once and folds the burst after it into one, with the last values", async () => {
    const { updates, sent, next } = recorder();
    updates.opened("t1", { url: "about:blank", title: "" });
    updates.changed("t1", { url: "https://a.example/", title: "one" });
    expect(sent).to.deep.equal([{ tabId: "t1", url: "https://a.example/", title: "one" }]);
    for (let i = 0; i < 50; i++) updates.changed("t1", { url: "https://a.example/", title: `burst ${i}` });
    const trailing = next();
    expect(sent).to.have.length(1);
    await trailing;
    expect(sent).to.deep.equal([
      { tabId: "t1", url: "https://a.example/", title: "one" },
      { tabId: "t1", url: "https://a.example/", title: "burst 49" },
    ]);
    updates.clear();
  });

  it("sends nothing for a change that ends where the last news left the tab, and nothing after the tab went", async () => {
    const { updates, sent, next } = recorder();
    updates.opened("t1", { url: "https://a.example/", title: "same" });
    updates.changed("t1", { url: "https://a.example/", title: "same" });
    expect(sent).to.deep.equal([]);
    updates.changed("t1", { url: "https://a.example/", title: "other" });
    updates.changed("t1", { url: "https://a.example/", title: "back" });
    updates.changed("t1", { url: "https://a.example/", title: "other" });
    updates.changed("t3", { url: "https://c.example/", title: "three" });
    updates.changed("t3", { url: "https://c.example/", title: "three, pending" });
    updates.forget("t3");
    // t2's trailing news comes after the others' intervals ended: whatever they owed would have been sent by then.
    updates.changed("t2", { url: "https://b.example/", title: "two" });
    updates.changed("t2", { url: "https://b.example/", title: "two again" });
    await next();
    expect(sent.map((update) => `${update.tabId} ${update.title}`)).to.deep.equal(["t1 other", "t3 three", "t2 two", "t2 two again"]);
    updates.clear();
  });

  it("keeps each tab's interval its own", () => {
    const { updates, sent } = recorder();
    updates.changed("t1", { url: "u1", title: "a" });
    updates.changed("t2", { url: "u2", title: "b" });
    expect(sent.map((update) => update.tabId)).to.deep.equal(["t1", "t2"]);
    updates.clear();
  });
});
