import type { Protocol } from "devtools-protocol";
import { expect } from "chai";
import type { SnapshotNode } from "../../../src/protocol/types.js";
import { buildAxTree } from "../../../src/runtime/ax-tree.js";
import { RefRegistry } from "../../../src/runtime/ref-registry.js";

type AxNode = Protocol.Accessibility.AXNode;

interface Spec {
  role: string;
  name?: string;
  value?: string | number;
  ignored?: boolean;
  backend?: number | null;
  children?: Spec[];
}

let nextId = 0;

/** Flattens a nested spec into CDP's AX node list, children listed after parents in breadth-first order as Chrome does. */
function axNodes(spec: Spec): AxNode[] {
  const nodes: AxNode[] = [];
  const byId = new Map<string, AxNode>();
  const queue: { spec: Spec; parentId?: string }[] = [{ spec }];
  for (let item = queue.shift(); item; item = queue.shift()) {
    const nodeId = String(++nextId);
    const node: AxNode = { nodeId, ignored: item.spec.ignored ?? false, role: { type: "role", value: item.spec.role }, childIds: [] };
    if (item.spec.name !== undefined) node.name = { type: "computedString", value: item.spec.name };
    if (item.spec.value !== undefined)
      node.value = { type: typeof item.spec.value === "number" ? "number" : "string", value: item.spec.value };
    if (item.spec.backend !== null) node.backendDOMNodeId = item.spec.backend ?? 1000 + nextId;
    if (item.parentId !== undefined) {
      node.parentId = item.parentId;
      byId.get(item.parentId)?.childIds?.push(nodeId);
    }
    nodes.push(node);
    byId.set(nodeId, node);
    for (const child of item.spec.children ?? []) queue.push({ spec: child, parentId: nodeId });
  }
  return nodes;
}

/** The tree without refs, to compare shapes. */
function shape(node: SnapshotNode): object {
  const { ref: _ref, children, ...rest } = node;
  return children ? { ...rest, children: children.map(shape) } : rest;
}

const FORM: Spec = {
  role: "RootWebArea",
  name: "Form",
  children: [
    {
      role: "none",
      ignored: true,
      children: [
        {
          role: "generic",
          name: "",
          children: [
            {
              role: "button",
              name: "Submit",
              backend: 42,
              children: [{ role: "StaticText", name: "Submit", children: [{ role: "InlineTextBox", name: "Submit", backend: null }] }],
            },
            {
              role: "textbox",
              name: "Email",
              value: "a@b.c",
              children: [{ role: "generic", children: [{ role: "StaticText", name: "a@b.c" }] }],
            },
            { role: "generic", name: "Named group", children: [{ role: "StaticText", name: "hello" }] },
          ],
        },
      ],
    },
    {
      role: "list",
      children: [
        {
          role: "listitem",
          children: [
            { role: "ListMarker", name: "• " },
            { role: "StaticText", name: "one" },
          ],
        },
      ],
    },
  ],
};

describe("runtime/ax-tree buildAxTree", () => {
  it("keeps interesting nodes: ignored nodes and unnamed wrappers give way to their children, layout pieces and repeated text go", () => {
    const tree = buildAxTree(axNodes(FORM), { interestingOnly: true, refs: new RefRegistry() });
    expect(shape(tree.root)).to.deep.equal({
      role: "RootWebArea",
      name: "Form",
      children: [
        { role: "button", name: "Submit" },
        { role: "textbox", name: "Email", value: "a@b.c" },
        { role: "generic", name: "Named group", children: [{ role: "StaticText", name: "hello" }] },
        { role: "list", name: "", children: [{ role: "listitem", name: "", children: [{ role: "StaticText", name: "one" }] }] },
      ],
    });
  });

  it("writes the same tree as indented lines with refs, two spaces per level", () => {
    const tree = buildAxTree(axNodes(FORM), { interestingOnly: true, refs: new RefRegistry() });
    expect(tree.text).to.equal(
      [
        '- RootWebArea "Form" [ref=e1]',
        '  - button "Submit" [ref=e2]',
        '  - textbox "Email" [ref=e3]: "a@b.c"',
        '  - generic "Named group" [ref=e4]',
        '    - StaticText "hello" [ref=e5]',
        "  - list [ref=e6]",
        "    - listitem [ref=e7]",
        '      - StaticText "one" [ref=e8]',
      ].join("\n"),
    );
  });

  it("hands out refs depth first, maps each to its backendDOMNodeId, and gives a node the same ref in the next tree", () => {
    const refs = new RefRegistry();
    const nodes = axNodes(FORM);
    const tree = buildAxTree(nodes, { interestingOnly: true, refs });
    expect(tree.root.ref).to.equal("e1");
    expect(tree.root.children?.[0]).to.include({ ref: "e2", role: "button" });
    expect(tree.refs.get("e2")).to.deep.equal({ backendNodeId: 42 });
    expect(tree.refs.size).to.equal(8);
    const again = buildAxTree(nodes, { interestingOnly: true, refs });
    expect(again.text).to.equal(tree.text);
    const fewer = buildAxTree(nodes, { interestingOnly: true, interactiveOnly: true, refs });
    expect(fewer.text).to.equal('- RootWebArea "Form" [ref=e1]\n  - button "Submit" [ref=e2]\n  - textbox "Email" [ref=e3]: "a@b.c"');
  });

  it("keeps every node when interestingOnly is false, and a node without a DOM node maps to null", () => {
    const nodes = axNodes(FORM);
    const tree = buildAxTree(nodes, { interestingOnly: false, refs: new RefRegistry() });
    expect(tree.refs.size).to.equal(nodes.length);
    expect(tree.text).to.include("- none [ref=e2]\n    - generic [ref=");
    const inline = tree.text.split("\n").find((line) => line.includes("InlineTextBox"));
    const ref = /ref=(e\d+)/.exec(inline ?? "")?.[1] ?? "";
    expect(tree.refs.get(ref)).to.equal(null);
  });

  it("cuts the returned tree at maxDepth, counting levels after lifting, and hands out no refs below it", () => {
    const rootOnly = buildAxTree(axNodes(FORM), { interestingOnly: true, maxDepth: 0, refs: new RefRegistry() });
    expect(shape(rootOnly.root)).to.deep.equal({ role: "RootWebArea", name: "Form" });
    expect(rootOnly.text).to.equal('- RootWebArea "Form" [ref=e1]');
    const twoLevels = buildAxTree(axNodes(FORM), { interestingOnly: true, maxDepth: 1, refs: new RefRegistry() });
    expect(twoLevels.root.children?.map((node) => node.role)).to.deep.equal(["button", "textbox", "generic", "list"]);
    expect(twoLevels.root.children?.every((node) => node.children === undefined)).to.equal(true);
    expect(twoLevels.refs.size).to.equal(5);
  });

  it("quotes names and values as JSON so that every node stays on one line", () => {
    const tree = buildAxTree(
      axNodes({ role: "RootWebArea", name: 'say "hi"\nthere', children: [{ role: "slider", name: "Volume", value: 7 }] }),
      {
        interestingOnly: true,
        refs: new RefRegistry(),
      },
    );
    expect(tree.text).to.equal('- RootWebArea "say \\"hi\\"\\nthere" [ref=e1]\n  - slider "Volume" [ref=e2]: 7');
  });

  it("never drops the root, even an ignored one", () => {
    const tree = buildAxTree(axNodes({ role: "none", ignored: true, children: [{ role: "button", name: "Go" }] }), {
      interestingOnly: true,
      refs: new RefRegistry(),
    });
    expect(shape(tree.root)).to.deep.equal({ role: "none", name: "", children: [{ role: "button", name: "Go" }] });
  });

  it("a node read in a cross-site frame's process keeps its frame in its ref and line, so equal backend ids never mix", () => {
    const refs = new RefRegistry();
    const nodes = axNodes({
      role: "RootWebArea",
      name: "Top",
      children: [{ role: "button", name: "Top", backend: 7 }, { role: "Iframe" }],
    });
    const inner = axNodes({ role: "RootWebArea", name: "Inner", children: [{ role: "button", name: "Inner", backend: 7 }] });
    const iframe = nodes.find((node) => node.role?.value === "Iframe") as AxNode;
    const innerRoot = inner[0] as AxNode;
    innerRoot.parentId = iframe.nodeId;
    iframe.childIds = [innerRoot.nodeId];
    const tree = buildAxTree(
      [...nodes, ...inner.map((node) => ({ ...node, address: { backendNodeId: node.backendDOMNodeId ?? 0, remoteFrame: "FRAME1" } }))],
      {
        interestingOnly: true,
        refs,
      },
    );
    const refOf = (name: string): string => new RegExp(`button "${name}" \\[ref=(e\\d+)\\]`).exec(tree.text)?.[1] ?? "";
    expect(tree.refs.get(refOf("Top"))).to.deep.equal({ backendNodeId: 7 });
    expect(tree.refs.get(refOf("Inner"))).to.deep.equal({ backendNodeId: 7, remoteFrame: "FRAME1" });
    const keys = tree.lines.filter((line) => line.text.includes("button")).map((line) => line.node);
    expect(keys).to.deep.equal([refOf("Top"), refOf("Inner")]);
    expect(refOf("Top")).to.not.equal(refOf("Inner"));
    const sub = buildAxTree(
      [...nodes, ...inner.map((node) => ({ ...node, address: { backendNodeId: node.backendDOMNodeId ?? 0, remoteFrame: "FRAME1" } }))],
      {
        interestingOnly: true,
        refs,
        root: refOf("Inner"),
      },
    );
    expect(sub.text).to.equal(`- button "Inner" [ref=${refOf("Inner")}]`);
  });

  it("builds 30,000 nodes in one pass, in seconds at most (quadratic work would take minutes)", function () {
    // About 0.1 s on a quiet machine, 0.4 s on a busy one: the bounds leave room for a machine three times slower.
    this.timeout(20_000);
    const rows: Spec[] = [];
    for (let i = 0; i < 10_000; i++)
      rows.push({
        role: "listitem",
        children: [{ role: "button", name: `Row ${i}`, children: [{ role: "StaticText", name: `Row ${i}` }] }],
      });
    const nodes = axNodes({ role: "RootWebArea", name: "Big", children: [{ role: "list", children: rows }] });
    const started = performance.now();
    const tree = buildAxTree(nodes, { interestingOnly: true, refs: new RefRegistry() });
    const elapsedMs = performance.now() - started;
    expect(tree.refs.size).to.equal(20_002);
    expect(elapsedMs).to.be.below(5_000);
  });

  it("keeps at most maxNodes nodes, the first in document order, and says the tree is truncated", () => {
    const rows: Spec[] = Array.from({ length: 10 }, (_, at) => ({ role: "button", name: `Row ${at}` }));
    const nodes = axNodes({ role: "RootWebArea", name: "Rows", children: rows });
    const cut = buildAxTree(nodes, { interestingOnly: true, refs: new RefRegistry(), maxNodes: 4 });
    expect(cut.truncated).to.equal(true);
    expect(cut.text).to.equal(
      ['- RootWebArea "Rows" [ref=e1]', '  - button "Row 0" [ref=e2]', '  - button "Row 1" [ref=e3]', '  - button "Row 2" [ref=e4]'].join(
        "\n",
      ),
    );
    expect(buildAxTree(nodes, { interestingOnly: true, refs: new RefRegistry(), maxNodes: 11 }).truncated).to.equal(false);
  });
});
