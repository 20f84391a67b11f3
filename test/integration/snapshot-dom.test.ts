import { expect } from "chai";
import type { TabwireError } from "../../src/client/index.js";
import { ErrorCode } from "../../src/errors.js";
import { pageSuite } from "../support/page-suite.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";

const withoutRefs = (text: string): string => text.replace(/ \[ref=e\d+\]/g, "");

describe('snapshot source "dom": the hub reads the DOM itself, in Chrome\'s vocabulary (real hub, real Chromium)', function () {
  this.timeout(30_000);
  const suite = pageSuite();
  let tab: OpenedTab | undefined;
  const open = async (page: string): Promise<OpenedTab> => (tab = await openTab(suite.client, suite.fixtures.url(page)));

  afterEach(async () => {
    if (tab) await closeTab(suite.client, tab.target);
    tab = undefined;
  });

  for (const page of ["roles.html", "actions.html", "form.html", "labels.html"]) {
    it(`an interactiveOnly snapshot of ${page} reads as Chrome's own tree does, refs aside`, async () => {
      const { target } = await open(page);
      const chrome = await suite.client.call("snapshot", { target, source: "chrome", interactiveOnly: true });
      const dom = await suite.client.call("snapshot", { target, source: "dom", interactiveOnly: true });
      expect(withoutRefs(dom.text)).to.equal(withoutRefs(chrome.text));
    });
  }

  it("names come from labels, aria-label, aria-labelledby, alt, legends and content; hidden elements are left out", async () => {
    const { target } = await open("roles.html");
    const text = withoutRefs((await suite.client.call("snapshot", { target, source: "dom" })).text);
    for (const line of [
      '- textbox "Email address": "ada@example.com"',
      '- searchbox "Search the docs"',
      '- textbox "Notes"',
      '- button "Close dialog"',
      '- button "Print"',
      '- link "About us"',
      '- group "Size"',
      '- region "Settings"',
      '- table "Prices"',
      '- button "Shadow button"',
      '- link "Slotted link"',
      "- contentinfo",
    ]) {
      expect(text, line).to.include(line);
    }
    expect(text).to.not.match(/Hidden by|Hidden from|Invisible/);
  });

  it("its refs act: a click, a fill and callOn land on the element; after a navigation they are NODE_NOT_FOUND", async () => {
    const { target } = await open("form.html");
    const { text } = await suite.client.call("snapshot", { target, source: "dom" });
    const email = /textbox "Email" \[ref=(e\d+)\]/.exec(text)?.[1] as string;
    const submit = /button "Submit" \[ref=(e\d+)\]/.exec(text)?.[1] as string;
    await suite.client.fill({ target, ref: email, value: "grace@example.com" });
    await suite.client.click({ target, ref: submit });
    expect(await evaluate(suite.client, target, "document.querySelector('#status').textContent")).to.deep.include({
      value: "submitted grace@example.com",
    });
    expect(await suite.client.call("callOn", { target, ref: submit, functionDeclaration: "(el) => el.id" })).to.deep.include({
      value: "submit",
    });
    await suite.client.call("navigate", { target, url: suite.fixtures.url("form.html") });
    const stale = await suite.client.click({ target, ref: submit }).catch((error: TabwireError) => error);
    expect(stale).to.include({ code: ErrorCode.NODE_NOT_FOUND });
  });

  it("a ref whose element was removed is NODE_NOT_FOUND, and the next snapshot's diff names only what changed", async () => {
    const { target } = await open("actions.html");
    const before = await suite.client.call("snapshot", { target, source: "dom" });
    const ref = /button "Press me" \[ref=(e\d+)\]/.exec(before.text)?.[1] as string;
    await evaluate(suite.client, target, "document.getElementById('btn').remove()");
    const gone = await suite.client.click({ target, ref }).catch((error: TabwireError) => error);
    expect(gone).to.include({ code: ErrorCode.NODE_NOT_FOUND });
    const diff = await suite.client.call("snapshot", { target, source: "dom", diff: before.snapshotId });
    expect(diff.text).to.equal('- button "Press me"');
  });

  it("page scripts can neither see the hub's reading nor change it: it runs in a world of its own", async () => {
    const { target } = await open("form.html");
    await evaluate(
      suite.client,
      target,
      "Element.prototype.getAttribute = () => 'forged'; Object.defineProperty(Node.prototype, 'textContent', { get: () => 'forged' }); HTMLInputElement.prototype.checkVisibility = () => false",
    );
    const text = withoutRefs((await suite.client.call("snapshot", { target, source: "dom" })).text);
    expect(text).to.include('- button "Submit"').and.include('- textbox "Email": "ada@example.com"').and.not.include("forged");
    expect(await evaluate(suite.client, target, "typeof globalThis.__tabwire")).to.deep.include({ value: "undefined" });
  });

  it("after the tab moved to another renderer process, the hub reads and acts in its own world, never the page's", async function () {
    // Five tabs and twenty page loads: a slow day's time, not the suite's 30 s for one snapshot.
    this.timeout(120_000);
    // Chrome numbers execution contexts per renderer process: 127.0.0.1 and localhost are two sites, so two processes,
    // and after a few pages in the second one its page's own context has the number the hub's world had in the first.
    const elsewhere = suite.fixtures.url("world-trap.html").replace("127.0.0.1", "localhost");
    for (let pages = 1; pages <= 5; pages++) {
      const { target } = await open("world-trap.html");
      await suite.client.call("snapshot", { target, source: "dom" });
      for (let page = 1; page <= pages; page++) await suite.client.call("navigate", { target, url: `${elsewhere}?page=${page}` });
      const { text } = await suite.client.call("snapshot", { target, source: "dom" });
      expect(text, `after ${pages} page(s) on localhost`)
        .to.match(/button "Go" \[ref=e\d+\]/)
        .and.not.include("forged");
      await suite.client.click({ target, ref: /button "Go" \[ref=(e\d+)\]/.exec(text)?.[1] as string });
      expect(await evaluate(suite.client, target, "[window.__touched, document.querySelector('#go').textContent]")).to.deep.include({
        value: [null, "Clicked"],
      });
      await closeTab(suite.client, target);
      tab = undefined;
    }
  });

  it("a page of 10,000 accessible nodes comes back whole, and its refs work", async () => {
    const { target } = await open("big.html");
    const { text } = await suite.client.call("snapshot", { target, source: "dom" });
    const refs = [...text.matchAll(/\[ref=(e\d+)\]/g)].map((match) => match[1] as string);
    expect(refs.length).to.be.above(10_000);
    const last = refs[refs.length - 1] as string;
    const read = await suite.client.call("callOn", { target, ref: last, functionDeclaration: "(el) => el.isConnected" });
    expect(read).to.deep.include({ value: true });
  });
});
