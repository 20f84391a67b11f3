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
  it("puts refs only on what can be acted on or referred to, not on text structure or a native select's options", () => {
    const page: Spec = [
      "RootWebArea",
      "Shop",
      [
        ["heading", "Plans"],
        ["paragraph", "", [["StaticText", "Pick one."]]],
        [
          "combobox",
          "Plan",
          [
            ["option", "Free"],
            ["option", "Pro"],
          ],
          "Free",
        ],
        ["listbox", "Size", [["option", "S"]]],
        [
          "list",
          "",
          [
            [
              "listitem",
              "",
              [
                ["StaticText", "One"],
                ["link", "Two"],
              ],
            ],
          ],
        ],
        ["group", "Billing", [["radio", "Monthly"]]],
      ],
    ];
    expect(text(page)).to.equal(
      [
        '- RootWebArea "Shop" [ref=e1]',
        '  - heading "Plans" [ref=e2]',
        // The text of a paragraph carries the paragraph's ref.
        '  - "Pick one." [ref=e3]',
        '  - combobox "Plan" [ref=e5]: "Free"',
        '    - option "Free"',
        '    - option "Pro"',
        '  - listbox "Size" [ref=e8]',
        '    - option "S" [ref=e9]',
        "  - list [ref=e10]",
        "    - listitem",
        '      - "One" [ref=e12]',
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
        [
          "LabelText",
          "",
          [
            ["StaticText", "Name"],
            ["textbox", "Name"],
          ],
        ],
        [
          "group",
          "Size",
          [
            ["Legend", "", [["StaticText", "Size"]]],
            ["radio", "Small"],
          ],
        ],
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
        [
          "rowgroup",
          "",
          [
            [
              "row",
              "",
              [
                ["columnheader", "Plan"],
                ["columnheader", "Price"],
              ],
            ],
          ],
        ],
        [
          "row",
          "",
          [
            ["cell", "Pro"],
            ["cell", "9", [["link", "9"]]],
            ["cell", "", [["checkbox", "Pick"]]],
          ],
        ],
        [
          "row",
          "",
          [
            ["cell", "Team"],
            [
              "cell",
              "29 a month",
              [
                ["StaticText", "29"],
                ["StaticText", "a month"],
              ],
            ],
          ],
        ],
        [
          "row",
          "",
          [
            ["cell", "Team"],
            [
              "cell",
              "",
              [
                ["link", "Edit"],
                ["button", "Delete"],
              ],
            ],
          ],
        ],
      ],
    ];
    expect(text(table)).to.equal(
      [
        '- table "Prices" [ref=e1]',
        '  - row: "Plan" | "Price"',
        '  - row: "Pro" | link "9" [ref=e9] | checkbox "Pick" [ref=e11]',
        '  - row: "Team" | "29 a month"',
        "  - row",
        '    - cell "Team"',
        "    - cell",
        '      - link "Edit" [ref=e20]',
        '      - button "Delete" [ref=e21]',
      ].join("\n"),
    );
  });

  it("writes adjacent inline texts as one line, each list item or paragraph as its own, and leaves out what a name says", () => {
    const article: Spec = [
      "article",
      "",
      [
        [
          "heading",
          "Intro to it",
          [
            [
              "link",
              "Intro to it",
              [
                ["StaticText", "Intro"],
                ["emphasis", "", [["StaticText", "to it"]]],
              ],
            ],
          ],
        ],
        [
          "link",
          "Acme Docs",
          [
            ["image", "Acme"],
            ["StaticText", "Docs"],
          ],
        ],
        [
          "paragraph",
          "",
          [
            ["StaticText", "Read the"],
            ["link", "guide"],
            ["StaticText", "and"],
            ["strong", "", [["StaticText", "then"]]],
            ["StaticText", "go."],
          ],
        ],
        [
          "list",
          "",
          [
            ["listitem", "", [["StaticText", "One"]]],
            [
              "listitem",
              "",
              [
                ["StaticText", "Two with"],
                ["code", "", [["StaticText", "code()"]]],
              ],
            ],
          ],
        ],
        ["time", "", [["StaticText", "2026-01-06"]]],
        ["generic", "", [["StaticText", " "]]],
        ["button", "Close", [["StaticText", "x"]]],
      ],
    ];
    expect(text(article)).to.equal(
      [
        "- article [ref=e1]",
        // The heading's name is its link's: the link's line says it, and the link's words are its name.
        "  - heading [ref=e2]",
        '    - link "Intro to it" [ref=e3]',
        '  - link "Acme Docs" [ref=e7]',
        "  - paragraph",
        // A text alone has its own ref; one joined with a phrase beside it has none.
        '    - "Read the" [ref=e11]',
        '    - link "guide" [ref=e12]',
        '    - "and then go."',
        "  - list [ref=e17]",
        '    - "One" [ref=e18]',
        '    - "Two with code()" [ref=e20]',
        '  - "2026-01-06" [ref=e24]',
        '  - button "Close" [ref=e28]',
        '    - "x" [ref=e29]',
      ].join("\n"),
    );
  });

  it("gives each line the ref of the element it names (null for a node with no DOM node), and its text without refs, for diffs", () => {
    const { root, refs } = tree([
      "RootWebArea",
      "Page",
      [
        [
          "row",
          "",
          [
            ["cell", "A"],
            ["cell", "", [["link", "Go"]]],
          ],
        ],
        ["StaticText", "Loose"],
      ],
    ]);
    refs.set("e6", null);
    const lines = compactLines(root, refs);
    expect(lines.map((line) => [line.depth, line.bare, line.node])).to.deep.equal([
      [0, 'RootWebArea "Page"', "e1"],
      [1, 'row: "A" | link "Go"', "e2"],
      [1, '"Loose"', null],
    ]);
  });
});
