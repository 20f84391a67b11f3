import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { MAX_CHANGE_CHARS, MAX_CHANGE_LINES } from "../../src/runtime/page-changes.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { eventually } from "../support/eventually.js";
import { pageSuite } from "../support/page-suite.js";
import { connectClient, startTestHub } from "../support/test-hub.js";

/** The ref a text gives the element with this role and name. */
function refIn(text: string, role: string, name: string): string {
  const ref = new RegExp(`^[-+~ ]*${role} "${name}" \\[ref=(e\\d+)\\]`, "m").exec(text)?.[1];
  expect(ref, text).to.be.a("string");
  return ref as string;
}

for (const source of ["chrome", "dom"] as const) {
  describe(`actions answer what they changed on the page, with the tab's refs (snapshot before: source ${source}; real hub, real Chromium)`, function () {
    this.timeout(30_000);
    const suite = pageSuite();
    let tab: OpenedTab;
    let before: string;

    beforeEach(async () => {
      tab = await openTab(suite.client, suite.fixtures.url("changes.html"));
      before = (await suite.client.call("snapshot", { target: tab.target, source })).text;
    });
    afterEach(async () => closeTab(suite.client, tab.target));

    const click = (name: string, extra: { changes?: "diff" | "none" } = {}) =>
      suite.client.call("click", { target: tab.target, ref: refIn(before, "button", name), ...extra });

    it("a click that adds a list item answers the new item's lines; its refs act and name it in the next snapshots", async () => {
      const answer = await click("Add item");
      expect(Object.keys(answer).sort()).to.deep.equal(["changes", "ok"]);
      const diff = answer.changes?.diff as string;
      expect(diff.split("\n").map((line) => line.replace(/\[ref=e\d+\]/, "[ref]"))).to.deep.equal([
        "+ listitem [ref]",
        '+ StaticText "Item 3" [ref]',
      ]);
      const item = refIn(diff, "StaticText", "Item 3");
      const read = await suite.client.call("callOn", { target: tab.target, ref: item, functionDeclaration: "(node) => node.textContent" });
      expect(read).to.deep.include({ value: "Item 3" });
      for (const next of ["chrome", "dom"] as const) {
        const { text } = await suite.client.call("snapshot", { target: tab.target, source: next });
        expect(refIn(text, "StaticText", "Item 3"), next).to.equal(item);
      }
    });

    it("a renamed button keeps its ref; an item removed and a menu shown are `-` and `+` lines", async () => {
      const renamed = await click("Rename me");
      expect(renamed.changes).to.deep.equal({ diff: `~ button "Renamed" [ref=${refIn(before, "button", "Rename me")}]` });
      const removed = await click("Remove first");
      expect(removed.changes).to.deep.equal({ diff: '- listitem\n- StaticText "First item"' });
      const shown = await click("Menu");
      const lines = (shown.changes?.diff as string).split("\n").map((line) => line.replace(/\[ref=e\d+\]/, "[ref]"));
      expect(lines).to.deep.equal(['+ navigation "Menu" [ref]', '+ link "Menu one" [ref]', '+ link "Menu two" [ref]']);
      const hidden = await click("Menu");
      expect(hidden.changes?.diff).to.equal('- navigation "Menu"\n- link "Menu one"\n- link "Menu two"');
    });

    it("a click that navigates answers the new URL and title; one that sets the title answers the title alone", async () => {
      const titled = await click("Set title");
      expect(titled).to.deep.equal({ ok: true, changes: { title: "New title" } });
      const answer = await suite.client.call("click", { target: tab.target, ref: refIn(before, "link", "Next page") });
      expect(answer).to.deep.equal({
        ok: true,
        navigated: { url: suite.fixtures.url("other.html") },
        changes: { url: suite.fixtures.url("other.html"), title: "Other Page" },
      });
    });

    it('changes: "none" answers nothing of the page, though the page changed', async () => {
      expect(await click("Add item", { changes: "none" })).to.deep.equal({ ok: true });
      expect((await evaluate(suite.client, tab.target, "document.querySelectorAll('#list li').length")).value).to.equal(3);
    });

    it("an action that changes nothing on the page answers no changes: a click on a button with no handler, a hover, a scroll", async () => {
      expect(await click("Does nothing")).to.deep.equal({ ok: true });
      expect(await suite.client.call("hover", { target: tab.target, ref: refIn(before, "heading", "Changes") })).to.deep.equal({
        ok: true,
      });
      expect(await suite.client.call("scroll", { target: tab.target, deltaY: 200 })).to.deep.equal({ ok: true });
    });

    it("typing into a field answers its new value on the field's ref", async () => {
      const field = refIn(before, "textbox", "Field");
      const answer = await suite.client.call("type", { target: tab.target, ref: field, text: "abc" });
      expect(answer.changes).to.deep.equal({ diff: `~ textbox "Field" [ref=${field}]: "abc"` });
    });

    it("a page that changes wholesale answers a bounded diff, cut at whole lines, and says it is truncated", async () => {
      const answer = await click("Rewrite page");
      const diff = answer.changes?.diff as string;
      expect(answer.changes?.truncated).to.equal(true);
      expect(diff.split("\n").length).to.be.at.most(MAX_CHANGE_LINES);
      expect(diff.length).to.be.at.most(MAX_CHANGE_CHARS);
      expect(diff.split("\n")[0]).to.match(/^\+ paragraph \[ref=e\d+\]$/);
      for (const line of diff.split("\n")) expect(line).to.match(/^[-+~] \S+( "[^"]*")?( \[ref=e\d+\])?$/);
    });
  });
}

describe("actions answer what they changed on a page no snapshot was taken of (real hub, real Chromium)", function () {
  this.timeout(30_000);
  const suite = pageSuite();

  it("a click by selector on a fresh page answers the item it added, and the one an earlier item replaced", async () => {
    const tab = await openTab(suite.client, suite.fixtures.url("changes.html"));
    try {
      const added = await suite.client.call("click", { target: tab.target, selector: "#add" });
      expect(added.changes?.diff).to.match(/^\+ listitem \[ref=e\d+\]\n\+ StaticText "Item 3" \[ref=e\d+\]$/);
      const removed = await suite.client.call("click", { target: tab.target, selector: "#remove" });
      expect(removed.changes?.diff).to.equal('- listitem\n- StaticText "First item"');
    } finally {
      await closeTab(suite.client, tab.target);
    }
  });
});

describe("actions answer what they changed, under DIALOG_POLICY=manual (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let site: FixtureServer;
  let client: TabwireClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({ DIALOG_POLICY: "manual" });
    client = await connectClient(hub);
  });
  after(async () => {
    await client?.close();
    await hub?.stop();
    await site?.close();
  });

  it("a click whose handler opens a dialog a moment later answers without waiting on it (the dialog holds the page), and leaves it for dialog.handle", async () => {
    const { target } = await openTab(client, site.url("changes.html"));
    try {
      const answer = await client.call("click", { target, selector: "#confirm-later", timeoutMs: 15_000 });
      expect(answer.ok).to.equal(true);
      // The dialog may open before the answer or just after it: dialog.handle answers once it is open.
      await eventually(async () => (await client.call("dialog.handle", { target, accept: true })).ok, 15_000, "the dialog to open");
      expect((await evaluate(client, target, "document.getElementById('answered').textContent")).value).to.equal("true");
    } finally {
      await closeTab(client, target);
    }
  });
});
