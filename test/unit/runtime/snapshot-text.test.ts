import { expect } from "chai";
import type { AxLine } from "../../../src/runtime/ax-tree.js";
import { cursorOf, diffLines, pageOf, readCursor } from "../../../src/runtime/snapshot-text.js";

const line = (backendNodeId: number | null, bare: string, ref: number): AxLine => ({
  node: backendNodeId === null ? null : String(backendNodeId),
  depth: 1,
  bare,
  text: `  - ${bare.replace(/^(\S+( "[^"]*")?)/, `$1 [ref=e${ref}]`)}`,
});

describe("snapshot pages and diffs", () => {
  it("pages are whole lines within maxChars, a longer line a page of its own, and concatenate to the text", () => {
    const text = ["- a", "  - bb", "  - " + "c".repeat(30), "  - d"].join("\n");
    const pages: string[] = [];
    for (let from: number | null = 0; from !== null;) {
      const page = pageOf(text, from, 10);
      pages.push(page.text);
      from = page.next;
    }
    expect(pages).to.deep.equal(["- a\n", "  - bb\n", `  - ${"c".repeat(30)}\n`, "  - d"]);
    expect(pages.join("")).to.equal(text);
    expect(pageOf(text, 0, 1000)).to.deep.equal({ text, next: null });
  });

  it("a cursor names a snapshot and an offset; anything else is INVALID_PARAMS", () => {
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect(readCursor(cursorOf(id, 42))).to.deep.equal({ snapshotId: id, offset: 42 });
    expect(() => readCursor("../../x:1")).to.throw(/cursor is not one a snapshot gave/);
  });

  it("diffs by DOM node: changed and new lines with their new refs in order, then the lines that went", () => {
    const before = [line(1, 'button "Save"', 1), line(2, 'link "Help"', 2), line(null, 'StaticText "x"', 3)];
    const after = [line(1, 'button "Saved"', 9), line(3, 'textbox "Name"', 10), line(null, 'StaticText "x"', 11)];
    expect(diffLines(before, after).split("\n")).to.deep.equal([
      '~ button "Saved" [ref=e9]',
      '+ textbox "Name" [ref=e10]',
      '- link "Help"',
    ]);
    expect(diffLines(before, before)).to.equal("");
  });
});
