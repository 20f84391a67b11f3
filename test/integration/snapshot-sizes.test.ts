import { expect } from "chai";
import type { SnapshotNode } from "../../src/protocol/types.js";
import type { TabwireClient } from "../../src/client/index.js";
import { ErrorCode } from "../../src/errors.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, connectClient, sharedHub } from "../support/test-hub.js";

const withoutRefs = (text: string): string => text.replace(/\[ref=e\d+\]/g, "[ref]");

function* walk(node: SnapshotNode): Generator<SnapshotNode> {
  yield node;
  for (const child of node.children ?? []) yield* walk(child);
}

describe("snapshots sized for a language model: interactiveOnly, root, pages, diffs, boxes (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TabwireClient;
  let tab: OpenedTab;

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connectClient(hub);
  });
  beforeEach(async () => {
    tab = await openTab(client, fixtures.url("actions.html"));
  });
  afterEach(async () => closeTab(client, tab.target));
  after(async () => {
    await client.close();
    await fixtures.close();
  });

  it("interactiveOnly keeps what can be acted on and what names it, and is smaller than the full snapshot", async () => {
    const full = await client.call("snapshot", { target: tab.target });
    const interactive = await client.call("snapshot", { target: tab.target, interactiveOnly: true });
    const roles = new Set([...interactive.text.matchAll(/^\s*- (\S+)/gm)].map((match) => match[1]));
    expect([...roles].sort()).to.deep.equal(["RootWebArea", "button", "checkbox", "combobox", "heading", "link", "option", "textbox"]);
    expect(interactive.text).to.include('button "Press me"').and.include('link "Next page"');
    expect(interactive.text.length).to.be.below(full.text.length * 0.8);
    const ref = /button "Press me" \[ref=(e\d+)\]/.exec(interactive.text)?.[1] as string;
    await client.call("click", { target: tab.target, ref });
    expect((await evaluate(client, tab.target, "events.length")).value).to.be.above(0);
  });

  it("pages of maxChars are whole lines; read with cursor they have no overlap and no gap, and refs stay valid", async () => {
    const whole = await client.call("snapshot", { target: tab.target });
    const first = await client.call("snapshot", { target: tab.target, maxChars: 200 });
    expect(first.root).to.deep.equal({ ref: first.root.ref, role: "RootWebArea", name: "Actions Fixture" });
    const pages = [first.text];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await client.call("snapshot", { target: tab.target, cursor, maxChars: 200 });
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
    expect(withoutRefs(pages.join(""))).to.equal(withoutRefs(whole.text));
    const ref = /button "Press me" \[ref=(e\d+)\]/.exec(pages.join(""))?.[1] as string;
    await client.call("click", { target: tab.target, ref });
    const older = await rpcFailure((await connect(hub)).call("snapshot", { target: tab.target, cursor: `${whole.snapshotId}:0` }));
    expect(older.code).to.equal(ErrorCode.INVALID_PARAMS);
  });

  it("a diff after one change is a few lines: the renamed node, the new one, the one that went", async () => {
    const before = await client.call("snapshot", { target: tab.target });
    await evaluate(
      client,
      tab.target,
      "document.getElementById('btn').textContent = 'Renamed'; document.getElementById('disabled').remove(); document.body.append(Object.assign(document.createElement('button'), { textContent: 'Brand new' }))",
    );
    const diff = await client.call("snapshot", { target: tab.target, diff: before.snapshotId });
    const lines = diff.text.split("\n");
    expect(lines.length).to.be.within(3, 6);
    expect(lines.find((line) => line.startsWith("~ "))).to.match(/^~ button "Renamed" \[ref=e\d+\]$/);
    expect(lines).to.include('- button "Disabled"');
    expect(lines.some((line) => /^\+ button "Brand new" \[ref=e\d+\]$/.test(line))).to.equal(true);
    const stale = await rpcFailure((await connect(hub)).call("snapshot", { target: tab.target, diff: before.snapshotId }));
    expect(stale.code).to.equal(ErrorCode.INVALID_PARAMS);
  });

  it("root gives one element's subtree, and boxes each node's layout box in the viewport", async () => {
    const whole = await client.call("snapshot", { target: tab.target });
    const formRef =
      /LabelText \[ref=(e\d+)\]\n\s+- StaticText "Name"/.exec(whole.text)?.[1] ?? /- LabelText[^\n]*\[ref=(e\d+)\]/.exec(whole.text)?.[1];
    const sub = await client.call("snapshot", { target: tab.target, root: formRef as string, boxes: true });
    expect(sub.text.split("\n")[0]).to.match(/^- LabelText/);
    expect(sub.text).to.not.include("Press me");
    const withBoxes = await client.call("snapshot", { target: tab.target, boxes: true });
    const button = [...walk(withBoxes.root)].find((node) => node.role === "button" && node.name === "Press me");
    const rect = (
      await evaluate(
        client,
        tab.target,
        "(() => { const r = document.getElementById('btn').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()",
      )
    ).value as number[];
    const box = button?.box;
    expect([box?.x, box?.y, box?.width, box?.height].map((v) => Math.round(v ?? -1))).to.deep.equal(rect.map(Math.round));
  });
});
