import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { ANSWER_GRACE_MS, hubAnswerMs, TIMER_LAG_MS } from "../support/budgets.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { failure, rpcFailure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type EvaluateExtra, type OpenedTab } from "../support/tabs.js";
import { connect, connectClient, sharedHub, startTestHub } from "../support/test-hub.js";

describe("evaluate (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TabwireClient;
  let tab: OpenedTab;
  const run = (expression: string, extra: EvaluateExtra = {}) => evaluate(client, tab.target, { expression: expression, ...extra });

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connectClient(hub);
  });
  beforeEach(async () => {
    tab = await openTab(client, fixtures.url("index.html"));
  });
  afterEach(async () => closeTab(client, tab.target));
  after(async () => {
    await client.close();
    await fixtures.close();
  });

  describe("the webctl eval table", () => {
    const rows: [string, object][] = [
      ["1 + 1", { type: "number", value: 2 }],
      ["document.title", { type: "string", value: "Fixture Home" }],
      ["[1, 2, 3]", { type: "object", subtype: "array", value: [1, 2, 3] }],
      ["{a: 1, b: 2}", { type: "object", value: { a: 1, b: 2 } }],
      ["null", { type: "object", subtype: "null", value: null }],
      ["undefined", { type: "undefined" }],
      ["Promise.resolve(42)", { type: "number", value: 42 }],
      ["document.querySelector('.x')", { type: "object", subtype: "null", value: null }],
      ["[1, 2, 3].map(x => x * 2)", { type: "object", subtype: "array", value: [2, 4, 6] }],
      ["({name: 'test', count: 42})", { type: "object", value: { name: "test", count: 42 } }],
      ["new Promise(r => setTimeout(() => r('done'), 100))", { type: "string", value: "done" }],
      ["(function() { const x = 1; const y = 2; return x + y; })()", { type: "number", value: 3 }],
      ["document.querySelectorAll('a').length", { type: "number", value: 3 }],
      ["document.querySelector('#main').textContent.trim().split('\\n')[0]", { type: "string", value: "tabwire fixture" }],
      ["fetch('/data.json').then(r => r.json())", { type: "object", value: { data: "fetched", count: 42 } }],
      ["window.location.pathname", { type: "string", value: "/index.html" }],
    ];
    for (const [expression, expected] of rows) {
      it(`${expression} -> ${JSON.stringify(expected)}`, async () => {
        expect(await run(expression)).to.deep.equal(expected);
      });
    }

    it("a DOM node comes back with its description and no value", async () => {
      expect(await run("document.querySelector('#main')")).to.deep.equal({
        type: "object",
        subtype: "node",
        description: "div#main.content",
      });
    });

    it("a syntax error is EVALUATION_FAILED with the parser's message", async () => {
      const error = await failure(run("foo())"));
      expect(error.code).to.equal(-32000);
      expect(error.message).to.equal("SyntaxError: Unexpected token ')'");
    });

    it("a reference error names the variable", async () => {
      const error = await failure(run("undefinedVar"));
      expect(error.message).to.equal("ReferenceError: undefinedVar is not defined");
      expect(error.data).to.include({ name: "ReferenceError", message: "undefinedVar is not defined", lineNumber: 0, columnNumber: 0 });
    });

    it("a circular value is SERIALIZATION_FAILED", async () => {
      const error = await failure(run("const o = {}; o.self = o; o"));
      expect(error.code).to.equal(-32005);
    });
  });

  describe("the agentchrome acceptance criteria", () => {
    it("AC1: document.title is a string", async () => {
      expect(await run("document.title")).to.deep.equal({ type: "string", value: "Fixture Home" });
    });

    it("AC2: a function is called and its result returned", async () => {
      expect(await run("() => { return 2 + 2; }")).to.deep.equal({ type: "number", value: 4 });
    });

    it("AC3: every JavaScript value type is represented", async () => {
      const results = await Promise.all(["'s'", "1.5", "true", "null", "undefined", "({k: 'v'})", "[1, 'a']"].map((code) => run(code)));
      expect(results).to.deep.equal([
        { type: "string", value: "s" },
        { type: "number", value: 1.5 },
        { type: "boolean", value: true },
        { type: "object", subtype: "null", value: null },
        { type: "undefined" },
        { type: "object", value: { k: "v" } },
        { type: "object", subtype: "array", value: [1, "a"] },
      ]);
    });

    it("AC4: the target picks the tab", async () => {
      const other = await openTab(client, fixtures.url("other.html"));
      try {
        expect(await evaluate(client, other.target, "document.title")).to.deep.equal({ type: "string", value: "Other Page" });
        expect(await run("document.title")).to.deep.equal({ type: "string", value: "Fixture Home" });
      } finally {
        await closeTab(client, other.target);
      }
    });

    it("AC5: a promise is awaited by default", async () => {
      expect(await run("new Promise(r => setTimeout(() => r('done'), 100))")).to.deep.equal({ type: "string", value: "done" });
    });

    it("AC6: awaitPromise false returns the unresolved promise object", async () => {
      const result = await run("new Promise(r => setTimeout(() => r('done'), 100))", { awaitPromise: false });
      expect(result).to.include({ type: "object", subtype: "promise" });
    });

    it("AC7: a promise that never settles is TIMEOUT within its budget", async () => {
      const error = await failure(run("new Promise(() => {})", { timeoutMs: 100 }));
      expect(error.code).to.equal(-32001);
      expect(error.data).to.deep.equal({ timeoutMs: 100, terminated: false });
    });

    it("AC11: a thrown Error carries its message and stack", async () => {
      const error = await failure(run("throw new Error('test error')"));
      expect(error.message).to.equal("Error: test error");
      expect((error.data as { stack: string }).stack).to.match(/^Error: test error\n\s+at /);
    });

    it("AC12: an unknown variable is a ReferenceError", async () => {
      expect((await failure(run("nonExistentVariable"))).message).to.match(/^ReferenceError: nonExistentVariable is not defined/);
    });

    it("AC13: maxSize truncates a large result", async () => {
      const result = await run("'x'.repeat(10000)", { maxSize: 100 });
      expect(result.truncated).to.equal(true);
      expect(Buffer.byteLength(result.value as string)).to.equal(100);
    });

    it("AC16: console output during the call is captured", async () => {
      const result = await run("console.log('hello'); console.warn('careful', 1); 42");
      expect(result.value).to.equal(42);
      const console = result.console as { level: string; text: string; timestamp: number }[];
      expect(console.map(({ level, text }) => ({ level, text }))).to.deep.equal([
        { level: "log", text: "hello" },
        { level: "warn", text: "careful 1" },
      ]);
      expect(console[0]?.timestamp).to.be.a("number");
    });

    it("AC16: no console field when nothing was logged, or when capture is off", async () => {
      expect(await run("42")).to.not.have.property("console");
      expect(await run("console.log('x'); 1", { captureConsole: false })).to.not.have.property("console");
    });

    it("AC17: let and const of one call do not collide with the next", async () => {
      expect(await run("let x = 1; x")).to.deep.equal({ type: "number", value: 1 });
      expect(await run("let x = 2; x")).to.deep.equal({ type: "number", value: 2 });
    });
  });

  describe("the rest of docs/protocol.md's evaluate", () => {
    it("var and window globals persist on purpose; isolate false shares let", async () => {
      await run("var kept = 5; window.alsoKept = 6");
      expect((await run("kept + alsoKept")).value).to.equal(11);
      await run("let shared = 1", { isolate: false });
      expect((await failure(run("let shared = 2", { isolate: false }))).message).to.match(
        /SyntaxError: Identifier 'shared' has already been declared/,
      );
    });

    it("top-level await works", async () => {
      expect(await run("const r = await Promise.resolve(20); r + 1")).to.deep.equal({ type: "number", value: 21 });
    });

    it("an async function that awaits and throws is EVALUATION_FAILED; with awaitPromise false its promise comes back unresolved", async () => {
      const error = await failure(run("(async () => { await null; throw new TypeError('boom'); })()"));
      expect(error.code).to.equal(-32000);
      expect(error.message).to.match(/TypeError: boom/);
      const pending = await run("(async () => { await new Promise((r) => setTimeout(r, 50)); return 4; })()", { awaitPromise: false });
      expect(pending).to.include({ type: "object", subtype: "promise" });
    });

    it("a function gets args", async () => {
      expect(await run("(a, b) => a + b", { args: [1, 2] })).to.deep.equal({ type: "number", value: 3 });
      expect(await run("async (o) => o.list.length", { args: [{ list: [1, 2, 3] }] })).to.deep.equal({ type: "number", value: 3 });
    });

    it("values JSON cannot carry come as unserializableValue", async () => {
      const results = await Promise.all(["NaN", "Infinity", "-Infinity", "-0", "10n"].map((code) => run(code)));
      expect(results).to.deep.equal([
        { type: "number", unserializableValue: "NaN" },
        { type: "number", unserializableValue: "Infinity" },
        { type: "number", unserializableValue: "-Infinity" },
        { type: "number", unserializableValue: "-0" },
        { type: "bigint", unserializableValue: "10n" },
      ]);
    });

    it("symbols and functions come back described", async () => {
      expect(await run("Symbol('x')")).to.deep.equal({ type: "symbol", description: "Symbol(x)" });
      expect(await run("() => function named() {}")).to.deep.equal({ type: "function", description: "function named() {}" });
      expect(await run("document.body")).to.deep.equal({ type: "object", subtype: "node", description: "body" });
    });

    it("a thrown string is EVALUATION_FAILED named Uncaught", async () => {
      expect((await failure(run("throw 'boom'"))).message).to.equal("Uncaught: boom");
    });

    it("runs with a user gesture", async () => {
      expect((await run("navigator.userActivation.isActive")).value).to.equal(true);
    });

    it("alert and confirm are answered at once by the dialog policy (dismiss)", async () => {
      expect(await run("alert('x'); 'after alert'", { timeoutMs: 5_000 })).to.deep.equal({ type: "string", value: "after alert" });
      expect(await run("confirm('y')", { timeoutMs: 5_000 })).to.deep.equal({ type: "boolean", value: false });
    });

    it("while (true) {} answers TIMEOUT within timeoutMs + 250 ms, is stopped, and the tab works afterwards", async () => {
      const before = await hubAnswerMs(hub.url, { method: "evaluate", outcome: "TIMEOUT" });
      const error = await failure(run("while (true) {}", { timeoutMs: 1_000 }));
      expect(error.code).to.equal(-32001);
      expect(error.data).to.deep.equal({ timeoutMs: 1_000, terminated: true });
      // As the hub measures it, from the call's arrival to its answer (the sockets and the test add a slow day's lag).
      const took = (await hubAnswerMs(hub.url, { method: "evaluate", outcome: "TIMEOUT" })) - before;
      expect(took, "ms from the call's arrival to its answer").to.be.below(1_000 + ANSWER_GRACE_MS + TIMER_LAG_MS);
      expect(await run("1 + 1", { timeoutMs: 10_000 })).to.deep.equal({ type: "number", value: 2 });
    });

    for (const awaitPromise of [true, false]) {
      it(`a spinning script whose call ended while it waited behind another is stopped once it runs; the script it cut short says why (awaitPromise ${awaitPromise})`, async () => {
        // Chrome runs one script at a time per tab: the second call's budget ends while the first spins, so its own
        // script only starts once the hub has stopped the first one; the third call must not wait behind it.
        // Chrome answers a stopped script "Internal error" when it awaits a promise, "Execution was terminated" otherwise.
        const [first, second, third] = await Promise.allSettled([
          run("while (true) {}", { timeoutMs: 1_500, awaitPromise }),
          run("while (true) {}", { timeoutMs: 100 }),
          // Behind the first script's 1.5 s, not behind the second's, which would spin for ever.
          run("1 + 1", { timeoutMs: 10_000 }),
        ]);
        expect(third).to.deep.equal({ status: "fulfilled", value: { type: "number", value: 2 } });
        expect(second.status === "rejected" && second.reason).to.include({ code: -32001 });
        expect(first.status === "rejected" && first.reason).to.include({ code: -32000 });
        expect(first.status === "rejected" && (first.reason as { data?: unknown }).data).to.include({ name: "TerminatedError" });
      });
    }

    it("a promise that never settles answers TIMEOUT and the tab works afterwards", async () => {
      const error = await failure(run("new Promise(() => {})", { timeoutMs: 500 }));
      expect(error.data).to.deep.equal({ timeoutMs: 500, terminated: false });
      expect(await run("1 + 1", { timeoutMs: 10_000 })).to.deep.equal({ type: "number", value: 2 });
    });

    it("a reload racing a slow promise answers PAGE_NAVIGATED", async () => {
      const error = await failure(
        run("setTimeout(() => location.reload(), 50); new Promise(r => setTimeout(r, 10000))", { timeoutMs: 8_000 }),
      );
      expect(error.code).to.equal(-32013);
    });

    it("200 evaluates in a row attach one CDP session, not 200", async () => {
      const before = hub.services.pool.stats().attaches;
      for (let i = 0; i < 200; i++) expect((await run(`${i} + 1`)).value).to.equal(i + 1);
      expect(hub.services.pool.stats().attaches - before).to.be.at.most(1);
    });

    // A wire test: it picks the request id ("spin-1") and cancels it by that id, which the typed client keeps to itself.
    it("cancel answers the cancelled call CANCELLED and stops a spinning script", async () => {
      const wire = await connect(hub);
      try {
        const expression = "fetch('/mark?name=spin-1', { keepalive: true }); while (true) {}";
        const spinning = rpcFailure(wire.call("evaluate", { target: tab.target, expression, timeoutMs: 20_000 }, "spin-1"));
        await fixtures.waitForMark("spin-1");
        expect(await wire.call("cancel", { id: "spin-1" })).to.deep.equal({ cancelled: true });
        expect((await spinning).code).to.equal(-32010);
        expect(await run("1 + 1", { timeoutMs: 10_000 })).to.deep.equal({ type: "number", value: 2 });
        expect(await wire.call("cancel", { id: "spin-1" })).to.deep.equal({ cancelled: false });
      } finally {
        await wire.close();
      }
    });

    it("a tab closed during the call answers TARGET_CLOSED", async () => {
      const pending = failure(run("new Promise(() => {})", { timeoutMs: 10_000 }));
      await run("1");
      await client.call("tabs.close", { target: tab.target });
      expect((await pending).code).to.equal(-32003);
    });
  });
});

describe("evaluate with EVALUATE_ENABLED=false", function () {
  this.timeout(30_000);

  it("answers FORBIDDEN, and the other methods still work", async () => {
    const hub = await startTestHub({ EVALUATE_ENABLED: "false" });
    const client = await connectClient(hub);
    try {
      const { target } = await openTab(client);
      const error = await failure(evaluate(client, target, "1 + 1"));
      expect(error.code).to.equal(-32007);
      expect(error.message).to.equal("evaluate is turned off on this hub (EVALUATE_ENABLED=false)");
      expect(await client.call("tabs.close", { target })).to.deep.equal({ closed: true });
    } finally {
      await client.close();
      await hub.stop();
    }
  });
});
