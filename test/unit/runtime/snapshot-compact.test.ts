import { expect } from "chai";
import type { SnapshotNode } from "../../../src/protocol/types.js";
import type { NodeAddress } from "../../../src/runtime/ax-tree.js";
import { compactChangeLines, compactLines } from "../../../src/runtime/snapshot-compact.js";

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
        // A paragraph and its text are one line, with no ref: text is read, not acted on.
        '  - "Pick one."',
        '  - combobox "Plan" [ref=e5]: "Free"',
        '    - option "Free"',
        '    - option "Pro"',
        '  - listbox "Size" [ref=e8]',
        '    - option "S" [ref=e9]',
        // A list of one item is that item.
        "  - listitem",
        '    - "One"',
        '    - link "Two" [ref=e13]',
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
        '    - "Read the"',
        '    - link "guide" [ref=e12]',
        '    - "and then go."',
        "  - list [ref=e17]",
        '    - "One"',
        '    - "Two with code()"',
        '  - "2026-01-06"',
        '  - button "Close" [ref=e28]',
        '    - "x"',
      ].join("\n"),
    );
  });

  it("writes a paragraph's text once with no ref, folds wrappers that carry nothing, keeps the ref of loose text and of a div holding text alone", () => {
    const card: Spec = [
      "main",
      "",
      [
        [
          "list",
          "",
          [
            [
              "listitem",
              "",
              [
                ["heading", "Blue Teapot"],
                ["paragraph", "", [["StaticText", "Glazed stoneware, fired twice."]]],
                ["generic", "", [["generic", "", [["button", "Add to cart"]]]]],
              ],
            ],
          ],
        ],
        [
          "generic",
          "",
          [
            ["generic", "", [["StaticText", "Settings"]]],
            ["link", "Help"],
          ],
        ],
        ["StaticText", "Drag me"],
      ],
    ];
    expect(text(card)).to.equal(
      [
        "- main [ref=e1]",
        // The list of one item and the divs around the button are gone; the paragraph is its text, once, with no ref.
        "  - listitem",
        '    - heading "Blue Teapot" [ref=e4]',
        '    - "Glazed stoneware, fired twice."',
        '    - button "Add to cart" [ref=e9]',
        // A div holding only text keeps its ref: a page may have made it clickable.
        "  - generic",
        '    - "Settings" [ref=e11]',
        '    - link "Help" [ref=e13]',
        // Loose text (Chrome's tree leaves out a div that holds only text) keeps its ref too.
        '  - "Drag me" [ref=e14]',
      ].join("\n"),
    );
  });

  it("writes a list whose items are each a link or button alone as one line, and any other list as lines", () => {
    const nav: Spec = [
      "navigation",
      "Shop",
      [
        [
          "list",
          "",
          [
            ["listitem", "", [["link", "Home", [["StaticText", "Home"]]]]],
            ["listitem", "", [["generic", "", [["link", "Tea"]]]]],
            ["listitem", "", [["button", "More"]]],
          ],
        ],
        [
          "list",
          "",
          [
            ["listitem", "", [["link", "About"]]],
            ["listitem", "", [["StaticText", "Open daily"]]],
          ],
        ],
      ],
    ];
    expect(text(nav)).to.equal(
      [
        '- navigation "Shop" [ref=e1]',
        '  - list: link "Home" [ref=e4] | link "Tea" [ref=e8] | button "More" [ref=e10]',
        "  - list [ref=e11]",
        '    - link "About" [ref=e13]',
        '    - "Open daily"',
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

  it("writes an action's page changes as compact lines: text as its words, structure without refs, empty wrappers left out", () => {
    const diff = [
      '~ link "Cart (1)" [ref=e157]',
      "+ listitem [ref=e31]",
      '+ StaticText "Item 3" [ref=e32]',
      '+ cell "Pro" [ref=e40]',
      '~ textbox "Email" [ref=e7]: "ada@example.com"',
      '- StaticText "idle"',
      "- paragraph",
      '+ StaticText "a line cut sh…',
    ].join("\n");
    expect(compactChangeLines(diff)).to.equal(
      [
        '~ link "Cart (1)" [ref=e157]',
        '+ "Item 3"',
        '+ cell "Pro"',
        '~ textbox "Email" [ref=e7]: "ada@example.com"',
        '- "idle"',
        '+ StaticText "a line cut sh…',
      ].join("\n"),
    );
  });
});
