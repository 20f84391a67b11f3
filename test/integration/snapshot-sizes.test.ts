import { expect } from "chai";
import type { SnapshotNode } from "../../src/protocol/types.js";
import { ErrorCode } from "../../src/errors.js";
import { rpcFailure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { pageSuite } from "../support/page-suite.js";
import { connect } from "../support/test-hub.js";
import { KEPT_SNAPSHOTS } from "../../src/runtime/kept-snapshots.js";

function* walk(node: SnapshotNode): Generator<SnapshotNode> {
  yield node;
  for (const child of node.children ?? []) yield* walk(child);
}

for (const source of ["chrome", "dom"] as const) {
  describe(`snapshots sized for a language model: interactiveOnly, root, pages, diffs, boxes (source: ${source}; real hub, real Chromium)`, function () {
    this.timeout(30_000);
    const suite = pageSuite();
    let tab: OpenedTab;

    beforeEach(async () => {
      tab = await openTab(suite.client, suite.fixtures.url("actions.html"));
    });
    afterEach(async () => closeTab(suite.client, tab.target));

    it("interactiveOnly keeps what can be acted on and what names it, and is smaller than the full snapshot", async () => {
      const full = await suite.client.call("snapshot", { target: tab.target, source });
      const interactive = await suite.client.call("snapshot", { target: tab.target, source, interactiveOnly: true });
      const roles = new Set([...interactive.text.matchAll(/^\s*- (\S+)/gm)].map((match) => match[1]));
      expect([...roles].sort()).to.deep.equal(["RootWebArea", "button", "checkbox", "combobox", "heading", "link", "option", "textbox"]);
      expect(interactive.text).to.include('button "Press me"').and.include('link "Next page"');
      expect(interactive.text.length).to.be.below(full.text.length * 0.8);
      const ref = /button "Press me" \[ref=(e\d+)\]/.exec(interactive.text)?.[1] as string;
      await suite.client.call("click", { target: tab.target, ref });
      expect((await evaluate(suite.client, tab.target, "events.length")).value).to.be.above(0);
    });

    it("compact writes the text for a model: refs only where one can act, labels folded into their fields; its refs act, its diffs work", async () => {
      const full = await suite.client.call("snapshot", { target: tab.target, source });
      const compact = await suite.client.call("snapshot", { target: tab.target, source, compact: true });
      // The tree is the same either way: only the text is written for a model.
      const withoutTreeRefs = (root: SnapshotNode): string => JSON.stringify(root).replace(/"ref":"e\d+"/g, "");
      expect(withoutTreeRefs(compact.root)).to.equal(withoutTreeRefs(full.root));
      expect(compact.text.length).to.be.below(full.text.length * 0.8);
      expect(compact.text).to.match(/\n\s+- textbox "Name" \[ref=e\d+\]\n/);
      expect(compact.text).to.not.match(/LabelText|StaticText "Name"/);
      const unreffed = compact.text.split("\n").filter((line) => !line.includes("[ref="));
      expect(unreffed.length).to.be.above(0);
      for (const line of unreffed)
        expect(line, line).to.match(/^\s*- (option|paragraph|listitem|row|cell|generic|group|LabelText)\b|^\s*- "|^\s*- list: /);
      const ref = /button "Press me" \[ref=(e\d+)\]/.exec(compact.text)?.[1] as string;
      await suite.client.call("click", { target: tab.target, ref });
      expect((await evaluate(suite.client, tab.target, "events.length")).value).to.be.above(0);
      // Loose text is a quoted line with its ref (a page may make a div of text clickable): two divs are two lines a drag can join.
      const [from, to] = ["Drag me", "Drop here"].map(
        (text) => new RegExp(`^\\s*- "${text}" \\[ref=(e\\d+)\\]$`, "m").exec(compact.text)?.[1],
      );
      await suite.client.call("drag", { target: tab.target, from: { ref: from as string }, to: { ref: to as string } });
      const drags = (await evaluate(suite.client, tab.target, "drags")).value as string[];
      expect([drags[0], drags.at(-1)]).to.deep.equal(["source:pointerdown:true", "sink:pointerup:true"]);
      await evaluate(suite.client, tab.target, "document.getElementById('btn').textContent = 'Renamed'");
      const diff = await suite.client.call("snapshot", { target: tab.target, source, compact: true, diff: compact.snapshotId });
      expect(diff.text).to.match(/^~ button "Renamed" \[ref=e\d+\]$/m);
    });

    it("pages of maxChars are whole lines; read with cursor they have no overlap and no gap, and refs stay valid", async () => {
      const whole = await suite.client.call("snapshot", { target: tab.target, source });
      const first = await suite.client.call("snapshot", { target: tab.target, source, maxChars: 200 });
      expect(first.root).to.deep.equal({ ref: first.root.ref, role: "RootWebArea", name: "Actions Fixture" });
      const pages = [first.text];
      let cursor = first.nextCursor;
      while (cursor) {
        const page = await suite.client.call("snapshot", { target: tab.target, source, cursor, maxChars: 200 });
        expect(page.snapshotId).to.equal(first.snapshotId);
        pages.push(page.text);
        cursor = page.nextCursor;
      }
      expect(pages.length).to.be.above(2);
      for (const page of pages.slice(0, -1)) {
        expect(page.endsWith("\n"), page).to.equal(true);
        expect(page.length <= 200 || page.split("\n").length === 2, page).to.equal(true);
      }
      expect(pages.join("")).to.have.length(first.totalChars as number);
      // Refs name elements, not snapshots: the paged snapshot reads exactly as the whole one taken before it.
      expect(pages.join("")).to.equal(whole.text);
      const ref = /button "Press me" \[ref=(e\d+)\]/.exec(pages.join(""))?.[1] as string;
      await suite.client.call("click", { target: tab.target, ref });
      // Another connection's snapshot does not end this one's paging; only snapshots the tab no longer keeps end it.
      const other = await connect(suite.hub);
      await other.call("snapshot", { target: tab.target, source });
      const still = await suite.client.call("snapshot", { target: tab.target, source, cursor: `${first.snapshotId}:0`, maxChars: 200 });
      expect(still.text).to.equal(first.text);
      for (let at = 0; at < KEPT_SNAPSHOTS; at++) await other.call("snapshot", { target: tab.target, source });
      const older = await rpcFailure(other.call("snapshot", { target: tab.target, source, cursor: `${whole.snapshotId}:0` }));
      expect(older.code).to.equal(ErrorCode.INVALID_PARAMS);
    });

    it("a diff after one change is a few lines: the renamed node, the new one, the one that went", async () => {
      const before = await suite.client.call("snapshot", { target: tab.target, source });
      await evaluate(
        suite.client,
        tab.target,
        "document.getElementById('btn').textContent = 'Renamed'; document.getElementById('disabled').remove(); document.body.append(Object.assign(document.createElement('button'), { textContent: 'Brand new' }))",
      );
      const diff = await suite.client.call("snapshot", { target: tab.target, source, diff: before.snapshotId });
      const lines = diff.text.split("\n");
      expect(lines.length).to.be.within(3, 6);
      // The renamed button keeps its ref.
      const pressMe = /button "Press me" \[ref=(e\d+)\]/.exec(before.text)?.[1] as string;
      expect(lines.find((line) => line.startsWith("~ "))).to.equal(`~ button "Renamed" [ref=${pressMe}]`);
      expect(lines).to.include('- button "Disabled"');
      expect(lines.some((line) => /^\+ button "Brand new" \[ref=e\d+\]$/.test(line))).to.equal(true);
      // Another snapshot in between (another connection's) does not end the diff against an earlier one.
      await (await connect(suite.hub)).call("snapshot", { target: tab.target, source });
      const again = await suite.client.call("snapshot", { target: tab.target, source, diff: before.snapshotId });
      expect(again.text).to.equal(diff.text);
      const unknown = await rpcFailure(
        (await connect(suite.hub)).call("snapshot", { target: tab.target, source, diff: "0f8fad5b-d9cb-469f-a165-70867728950e" }),
      );
      expect(unknown.code).to.equal(ErrorCode.INVALID_PARAMS);
    });

    it("a diff against an interactiveOnly snapshot compares like with like: asked with the default options, it is the changed line only", async () => {
      const interactive = await suite.client.call("snapshot", { target: tab.target, source, interactiveOnly: true });
      await evaluate(suite.client, tab.target, "document.getElementById('btn').textContent = 'Renamed'");
      const diff = await suite.client.call("snapshot", { target: tab.target, source, diff: interactive.snapshotId });
      const pressMe = /button "Press me" \[ref=(e\d+)\]/.exec(interactive.text)?.[1] as string;
      expect(diff.text).to.equal(`~ button "Renamed" [ref=${pressMe}]`);
      // The diff's snapshot is kept as it was read: a diff against it is as lean.
      await evaluate(suite.client, tab.target, "document.getElementById('btn').textContent = 'Renamed again'");
      const next = await suite.client.call("snapshot", { target: tab.target, source, diff: diff.snapshotId });
      expect(next.text).to.equal(`~ button "Renamed again" [ref=${pressMe}]`);
    });

    it("right after a navigating click or a new document.title, the snapshot's title is the page's, as its text's root line says", async () => {
      for (let round = 0; round < 5; round += 1) {
        await suite.client.call("click", { target: tab.target, selector: "#next" });
        const snapshot = await suite.client.call("snapshot", { target: tab.target, source });
        expect(snapshot.text.split("\n")[0], `round ${round}`).to.match(/^- RootWebArea "Other Page"/);
        expect(snapshot.title, `round ${round}`).to.equal("Other Page");
        await suite.client.call("navigate", { target: tab.target, url: suite.fixtures.url("actions.html") });
      }
      // Chrome's record of the target takes a new title a moment after the page set it.
      for (let round = 0; round < 20; round += 1) {
        await evaluate(suite.client, tab.target, `document.title = "Title ${round}"`);
        const snapshot = await suite.client.call("snapshot", { target: tab.target, source });
        expect(snapshot.text.split("\n")[0], `round ${round}`).to.match(new RegExp(`^- RootWebArea "Title ${round}"`));
        expect(snapshot.title, `round ${round}`).to.equal(`Title ${round}`);
      }
    });

    it("root gives one element's subtree, and boxes each node's layout box in the viewport", async () => {
      const whole = await suite.client.call("snapshot", { target: tab.target, source });
      const formRef =
        /LabelText \[ref=(e\d+)\]\n\s+- StaticText "Name"/.exec(whole.text)?.[1] ?? /- LabelText[^\n]*\[ref=(e\d+)\]/.exec(whole.text)?.[1];
      const sub = await suite.client.call("snapshot", { target: tab.target, source, root: formRef as string, boxes: true });
      expect(sub.text.split("\n")[0]).to.match(/^- LabelText/);
      expect(sub.text).to.not.include("Press me");
      const withBoxes = await suite.client.call("snapshot", { target: tab.target, source, boxes: true });
      const button = [...walk(withBoxes.root)].find((node) => node.role === "button" && node.name === "Press me");
      const rect = (
        await evaluate(
          suite.client,
          tab.target,
          "(() => { const r = document.getElementById('btn').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()",
        )
      ).value as number[];
      const box = button?.box;
      expect([box?.x, box?.y, box?.width, box?.height].map((v) => Math.round(v ?? -1))).to.deep.equal(rect.map(Math.round));
    });
  });
}
