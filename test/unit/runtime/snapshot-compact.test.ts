import { expect } from "chai";
import type { SnapshotNode } from "../../../src/protocol/types.js";
import type { NodeAddress } from "../../../src/runtime/ax-tree.js";
import { compactLines } from "../../../src/runtime/snapshot-compact.js";

type Spec = [role: string, name?: string, children?: Spec[], value?: string];

/** A tree of SnapshotNodes numbered depth first from e1, each ref naming a DOM node of its own. */
function tree(spec: Spec): { root: SnapshotNode; refs: Map<string, NodeAddress | null> } {
  const refs = new Map<string, NodeAddress | null>();
  let next = 1;
  const make = ([role, name = "", children, value]: Spec): SnapshotNode => {
    const ref = `e${next++}`;
    refs.set(ref, { backendNodeId: 100 + next });
    const node: SnapshotNode = { ref, role, name, ...(value === undefined ? {} : { value }) };
    if (children) node.children = children.map(make);
    return node;
  };
  return { root: make(spec), refs };
}

const text = (spec: Spec): string =>
  compactLines(tree(spec).root, tree(spec).refs)
    .map((line) => line.text)
    .join("\n");

describe("compactLines: a snapshot's text as a language model reads it", () => {
  it("puts refs only on what can be acted on or read alone, not on text structure or a native select's options", () => {
    const page: Spec = [
      "RootWebArea",
      "Shop",
      [
        ["heading", "Plans"],
        ["paragraph", "", [["StaticText", "Pick one."]]],
        ["combobox", "Plan", [["option", "Free"], ["option", "Pro"]], "Free"],
        ["listbox", "Size", [["option", "S"]]],
        ["list", "", [["listitem", "", [["StaticText", "One"], ["link", "Two"]]]]],
        ["group", "Billing", [["radio", "Monthly"]]],
      ],
    ];
    expect(text(page)).to.equal(
      [
        '- RootWebArea "Shop" [ref=e1]',
        '  - heading "Plans" [ref=e2]',
        '  - StaticText "Pick one." [ref=e4]',
        '  - combobox "Plan" [ref=e5]: "Free"',
        '    - option "Free"',
        '    - option "Pro"',
        '  - listbox "Size" [ref=e8]',
        '    - option "S" [ref=e9]',
        "  - list [ref=e10]",
        "    - listitem",
        '      - StaticText "One" [ref=e12]',
        '      - link "Two" [ref=e13]',
        '  - group "Billing" [ref=e14]',
        '    - radio "Monthly" [ref=e15]',
      ].join("\n"),
    );
  });

  it("drops a label's text where its control carries it, text that repeats the parent's name, and blank text", () => {
    const form: Spec = [
      "form",
      "Sign up",
      [
        ["LabelText", "", [["StaticText", "Email"]]],
        ["textbox", "Email"],
        ["LabelText", "", [["StaticText", "Name"], ["textbox", "Name"]]],
        ["group", "Size", [["Legend", "", [["StaticText", "Size"]]], ["radio", "Small"]]],
        ["StaticText", " "],
        ["StaticText", "Sign up"],
      ],
    ];
    expect(text(form)).to.equal(
      [
        '- form "Sign up" [ref=e1]',
        '  - textbox "Email" [ref=e4]',
        '  - textbox "Name" [ref=e7]',
        '  - group "Size" [ref=e8]',
        '    - radio "Small" [ref=e11]',
      ].join("\n"),
    );
  });

  it("writes a row of simple cells as one line, and a row with a cell that holds more as lines", () => {
    const table: Spec = [
      "table",
      "Prices",
      [
        ["rowgroup", "", [["row", "", [["columnheader", "Plan"], ["columnheader", "Price"]]]]],
        ["row", "", [["cell", "Pro"], ["cell", "9", [["link", "9"]]], ["cell", "", [["checkbox", "Pick"]]]]],
        ["row", "", [["cell", "Team"], ["cell", "29 a month", [["StaticText", "29"], ["StaticText", "a month"]]]]],
      ],
    ];
    expect(text(table)).to.equal(
      [
        '- table "Prices" [ref=e1]',
        '  - row: "Plan" | "Price"',
        '  - row: "Pro" | link "9" [ref=e9] | checkbox "Pick" [ref=e11]',
        "  - row",
        '    - cell "Team"',
        '    - cell "29 a month"',
        '      - StaticText "29" [ref=e15]',
        '      - StaticText "a month" [ref=e16]',
      ].join("\n"),
    );
  });

  it("gives each line the DOM node it names, and its text without refs, for diffs", () => {
    const { root, refs } = tree(["RootWebArea", "Page", [["row", "", [["cell", "A"], ["cell", "", [["link", "Go"]]]]]]]);
    const lines = compactLines(root, refs);
    expect(lines.map((line) => [line.depth, line.bare, line.node])).to.deep.equal([
      [0, 'RootWebArea "Page"', "/102"],
      [1, 'row: "A" | link "Go"', "/103"],
    ]);
  });
});
