import { expect } from "chai";
import { Budget } from "../../src/budget.js";
import type { Methods, TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { failure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connectClient, sharedHub, startTestHub } from "../support/test-hub.js";

interface SnapshotNode {
  ref: string;
  role: string;
  name: string;
  value?: string | number | boolean;
  children?: SnapshotNode[];
}

/** The snapshot result with its tree typed (the client types `root` as unknown). */
type Snapshot = Methods["snapshot"]["result"] & { root: SnapshotNode };
type SnapshotParams = Omit<Methods["snapshot"]["params"], "target">;
type CallOnExtra = Omit<Methods["callOn"]["params"], "target" | "functionDeclaration">;

function* walk(node: SnapshotNode): Generator<SnapshotNode> {
  yield node;
  for (const child of node.children ?? []) yield* walk(child);
}

function find(snapshot: Snapshot, role: string, name: string): SnapshotNode {
  const node = [...walk(snapshot.root)].find((candidate) => candidate.role === role && candidate.name === name);
  if (!node) throw new Error(`no ${role} "${name}" in the snapshot:\n${snapshot.text}`);
  return node;
}

describe("snapshot and callOn (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TabwireClient;
  let tab: OpenedTab;
  const snapshot = (extra: SnapshotParams = {}) => client.call("snapshot", { target: tab.target, ...extra }) as Promise<Snapshot>;
  const callOn = (functionDeclaration: string, extra: CallOnExtra = {}) =>
    client.call("callOn", { target: tab.target, functionDeclaration, ...extra });
  const submitRef = async () => find(await snapshot(), "button", "Submit").ref;

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connectClient(hub);
  });
  beforeEach(async () => {
    tab = await openTab(client, fixtures.url("form.html"));
  });
  afterEach(async () => closeTab(client, tab.target));
  after(async () => {
    await client.close();
    await fixtures.close();
  });

  /** The backendDOMNodeId of the first match, read over the hub's own CDP session as a CDP-savvy caller would. */
  async function backendNodeIdOf(selector: string): Promise<number> {
    const budget = new Budget(5_000);
    try {
      const session = await hub.services.pool.acquire(tab.tabId, budget);
      const { result } = await session.send("Runtime.evaluate", { expression: `document.querySelector(${JSON.stringify(selector)})` });
      const { node } = await session.send("DOM.describeNode", { objectId: result.objectId ?? "" });
      return node.backendNodeId;
    } finally {
      budget.dispose();
    }
  }

  describe("snapshot", () => {
    it("lists the button with its name, in root and in text, with the tab's url and title", async () => {
      const result = await snapshot();
      const button = find(result, "button", "Submit");
      expect(button.ref).to.match(/^e\d+$/);
      expect(result.text.split("\n")).to.include(`      - button "Submit" [ref=${button.ref}]`);
      expect(find(result, "textbox", "Email").value).to.equal("ada@example.com");
      expect(result.url).to.equal(fixtures.url("form.html"));
      expect(result.title).to.equal("Form Fixture");
      expect(result.snapshotId)
        .to.be.a("string")
        .and.not.equal((await snapshot()).snapshotId);
    });

    it("maxDepth 0 gives the root alone; interestingOnly false gives every node Chrome reports", async () => {
      const rootOnly = await snapshot({ maxDepth: 0 });
      expect(rootOnly.root).to.deep.equal({ ref: rootOnly.root.ref, role: "RootWebArea", name: "Form Fixture" });
      const everything = await snapshot({ interestingOnly: false });
      const interesting = await snapshot();
      expect([...walk(everything.root)].length).to.be.above([...walk(interesting.root)].length);
      expect(everything.text).to.include('InlineTextBox "Submit"');
    });
  });

  describe("callOn", () => {
    it("AC10: by ref, the element is the first argument", async () => {
      expect(await callOn("(el) => el.textContent", { ref: await submitRef() })).to.deep.equal({ type: "string", value: "Submit" });
    });

    it("a click by ref changes the page, as a later evaluate sees", async () => {
      expect(await callOn("(el) => el.click()", { ref: await submitRef() })).to.deep.equal({ type: "undefined" });
      const status = await evaluate(client, tab.target, "document.querySelector('#status').textContent");
      expect(status).to.deep.equal({ type: "string", value: "submitted ada@example.com" });
    });

    it("the element is `this` too, and args follow it", async () => {
      const result = await callOn("function (el, dash, n) { return [this === el, el.id + dash + n]; }", {
        ref: await submitRef(),
        args: ["-", 1],
      });
      expect(result).to.deep.equal({ type: "object", subtype: "array", value: [true, "submit-1"] });
    });

    it("after a navigation the old ref is NODE_NOT_FOUND, telling to take a new snapshot", async () => {
      const ref = await submitRef();
      await client.call("navigate", { target: tab.target, url: fixtures.url("form.html") });
      const error = await failure(callOn("(el) => el.textContent", { ref }));
      expect(error.code).to.equal(-32004);
      expect(error.message).to.match(/snapshot/);
    });

    it("AC14: an unknown ref, or any ref before a snapshot, is NODE_NOT_FOUND", async () => {
      const before = await failure(callOn("(el) => el.textContent", { ref: "e1" }));
      expect(before.code).to.equal(-32004);
      expect(before.message).to.match(/snapshot/);
      await snapshot();
      const unknown = await failure(callOn("(el) => el.textContent", { ref: "e999" }));
      expect(unknown.code).to.equal(-32004);
      expect(unknown.message).to.match(/snapshot/);
    });

    it("an element keeps its ref in the next snapshot, and the ref of the first still works", async () => {
      const older = await submitRef();
      const newer = await submitRef();
      expect(newer).to.equal(older);
      expect((await callOn("(el) => el.id", { ref: older })).value).to.equal("submit");
    });

    it("a ref whose element was removed is NODE_NOT_FOUND", async () => {
      const ref = await submitRef();
      await evaluate(client, tab.target, "document.querySelector('#submit').remove()");
      const error = await failure(callOn("(el) => el.id", { ref }));
      expect(error.code).to.equal(-32004);
      expect(error.message).to.match(/snapshot/);
    });

    it("by selector: the first match; no match is NODE_NOT_FOUND, a bad selector INVALID_PARAMS", async () => {
      expect(await callOn("(el) => el.value", { selector: "form input" })).to.deep.equal({ type: "string", value: "ada@example.com" });
      expect((await failure(callOn("(el) => el.id", { selector: "#missing" }))).code).to.equal(-32004);
      expect((await failure(callOn("(el) => el.id", { selector: "###" }))).code).to.equal(-32602);
    });

    it("by backendNodeId; one that resolves to nothing is NODE_NOT_FOUND", async () => {
      const backendNodeId = await backendNodeIdOf("#submit");
      expect(await callOn("(el) => el.id", { backendNodeId })).to.deep.equal({ type: "string", value: "submit" });
      expect((await failure(callOn("(el) => el.id", { backendNodeId: 2_000_000_000 }))).code).to.equal(-32004);
    });

    // A params-validation test: the typed client passes { ref, selector } through unchanged and the hub's schema refuses it.
    it("more than one element reference is INVALID_PARAMS", async () => {
      const error = await failure(callOn("(el) => el.id", { ref: "e1", selector: "#submit" }));
      expect(error.code).to.equal(-32602);
      expect((error.data as { errors: { path: string }[] }).errors.map((e) => e.path)).to.deep.equal(["/ref", "/selector"]);
    });

    it("without an element the function runs in the page's global context with args", async () => {
      expect(await callOn("(a, b) => document.title + (a + b)", { args: [1, 2] })).to.deep.equal({
        type: "string",
        value: "Form Fixture3",
      });
      expect((await callOn("function () { return this === window && arguments.length; }")).value).to.equal(0);
    });

    it("an exception inside is EVALUATION_FAILED with the page's error", async () => {
      const error = await failure(callOn("(el) => { throw new TypeError('bad ' + el.id); }", { selector: "#submit" }));
      expect(error.code).to.equal(-32000);
      expect(error.message).to.equal("TypeError: bad submit");
      expect(error.data).to.include({ name: "TypeError", message: "bad submit", lineNumber: 0 });
    });

    it("a promise is awaited, and maxSize truncates the value", async () => {
      const awaited = await callOn("async (el) => { await new Promise((resolve) => setTimeout(resolve, 10)); return el.id; }", {
        selector: "#submit",
      });
      expect(awaited).to.deep.equal({ type: "string", value: "submit" });
      const result = await callOn("(el) => el.id.repeat(5000)", { selector: "#submit", maxSize: 100 });
      expect(result.truncated).to.equal(true);
      expect(Buffer.byteLength(result.value as string)).to.equal(100);
    });

    it("console output during the call is captured", async () => {
      const result = await callOn("(el) => { console.log('clicked', el.id); return 1; }", { selector: "#submit" });
      expect(result.value).to.equal(1);
      const messages = result.console as { level: string; text: string }[];
      expect(messages.map(({ level, text }) => ({ level, text }))).to.deep.equal([{ level: "log", text: "clicked submit" }]);
    });
  });

  describe("a page of 10,000 accessible nodes", () => {
    it("comes back whole, and its refs work", async () => {
      await client.call("navigate", { target: tab.target, url: fixtures.url("big.html") });
      const result = await snapshot();
      const nodes = [...walk(result.root)];
      expect(nodes.length).to.be.above(9_000);
      expect(result.text.split("\n").length).to.equal(nodes.length);
      const last = find(result, "button", "Row 5000");
      expect(await callOn("(el) => el.textContent", { ref: last.ref })).to.deep.equal({ type: "string", value: "Row 5000" });
    });
  });
});

describe("callOn with EVALUATE_ENABLED=false", function () {
  this.timeout(30_000);

  it("answers FORBIDDEN, while snapshot (from either source) still works", async () => {
    const hub = await startTestHub({ EVALUATE_ENABLED: "false" });
    const client = await connectClient(hub);
    try {
      const { target } = await openTab(client);
      const error = await failure(client.call("callOn", { target, functionDeclaration: "() => 1" }));
      expect(error.code).to.equal(-32007);
      expect(error.message).to.equal("callOn is turned off on this hub (EVALUATE_ENABLED=false)");
      expect(await client.call("snapshot", { target })).to.have.property("root");
      expect(await client.call("snapshot", { target, source: "dom" })).to.have.property("root");
      await closeTab(client, target);
    } finally {
      await client.close();
      await hub.stop();
    }
  });
});
