import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { ANSWER_GRACE_MS, REPLY_SLACK_MS } from "../support/budgets.js";
import { json, tabwire, type Run } from "../support/cli.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, sharedHub, startTestHub } from "../support/test-hub.js";

interface SnapshotNode {
  ref: string;
  role: string;
  name: string;
  children?: SnapshotNode[];
}

const find = (node: SnapshotNode, role: string): SnapshotNode | undefined =>
  node.role === role ? node : (node.children ?? []).map((child) => find(child, role)).find(Boolean);

// AC1-AC19 are the acceptance criteria of agentchrome's `js exec` (seeds/002), run through `tabwire eval`.
describe("tabwire eval (the CLI against a real hub and Chromium)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TestRpcClient;
  let tab: OpenedTab;
  let dir: string;
  const run = (...args: string[]): Promise<Run> => tabwire(["eval", "--target", tab.target, ...args], hub.url);
  const piped = (stdin: string, ...args: string[]): Promise<Run> => tabwire(["eval", "--target", tab.target, ...args], hub.url, stdin);

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connect(hub);
    tab = await openTab(client, fixtures.url("index.html"));
    dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-cli-"));
  });
  after(async () => {
    await closeTab(client, tab.target);
    await client.close();
    await fixtures.close();
  });

  it("AC1: an expression prints its value and type (document.title)", async () => {
    const result = await run("document.title");
    expect(result.code).to.equal(0);
    expect(json(result.stdout)).to.deep.equal({ ok: true, type: "string", value: "Fixture Home" });
  });

  it("AC2: a function is called and its return value printed", async () => {
    expect(json((await run("() => { return 2 + 2; }")).stdout)).to.deep.equal({ ok: true, type: "number", value: 4 });
  });

  it("AC3: every JavaScript value type is represented with its type", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["'text'", { type: "string", value: "text" }],
      ["42", { type: "number", value: 42 }],
      ["true", { type: "boolean", value: true }],
      ["null", { type: "object", subtype: "null", value: null }],
      ["undefined", { type: "undefined" }],
      ["({ a: 1, b: [2] })", { type: "object", value: { a: 1, b: [2] } }],
      ["[1, 'two', null]", { type: "object", subtype: "array", value: [1, "two", null] }],
    ];
    for (const [code, expected] of cases) expect(json((await run(code)).stdout), code).to.deep.equal({ ok: true, ...expected });
  });

  it("AC4: --target picks one of two tabs", async () => {
    const second = await openTab(client, fixtures.url("other.html"));
    try {
      expect(json((await tabwire(["eval", "--target", second.target, "document.title"], hub.url)).stdout)).to.include({
        value: "Other Page",
      });
      expect(json((await run("document.title")).stdout)).to.include({ value: "Fixture Home" });
    } finally {
      await closeTab(client, second.target);
    }
  });

  it("AC5: a promise is awaited by default", async () => {
    expect(json((await run("new Promise(r => setTimeout(() => r('done'), 100))")).stdout)).to.deep.equal({
      ok: true,
      type: "string",
      value: "done",
    });
  });

  it("AC6: --no-await returns the promise itself, an object", async () => {
    expect(json((await run("--no-await", "new Promise(r => setTimeout(() => r('done'), 100))")).stdout)).to.include({
      type: "object",
      subtype: "promise",
    });
  });

  it("AC7: --timeout 100 on a promise that never settles: a JSON timeout error, non-zero exit", async () => {
    const result = await run("--timeout", "100", "new Promise(() => {})");
    expect(result.code).to.equal(4);
    expect(json(result.stderr)).to.include({ ok: false, code: "TIMEOUT" });
  });

  it("AC8: --file runs the file's code", async () => {
    const file = path.join(dir, "script.js");
    await writeFile(file, "document.title");
    expect(json((await run("--file", file)).stdout)).to.deep.equal({ ok: true, type: "string", value: "Fixture Home" });
  });

  it("AC9: - reads the code from piped stdin", async () => {
    expect(json((await piped("document.title\n", "-")).stdout)).to.deep.equal({ ok: true, type: "string", value: "Fixture Home" });
  });

  it("AC10: --uid (or --ref) runs a function on an element of the snapshot", async () => {
    const snapshot = json((await tabwire(["snapshot", "--target", tab.target], hub.url)).stdout) as unknown as { root: SnapshotNode };
    const heading = find(snapshot.root, "heading");
    expect(heading, "the fixture's h1 in the snapshot").to.not.equal(undefined);
    const byUid = await run("--uid", heading?.ref ?? "", "(el) => el.textContent");
    expect(json(byUid.stdout)).to.deep.equal({ ok: true, type: "string", value: "tabwire fixture" });
    expect(json((await run("--ref", heading?.ref ?? "", "(el) => el.tagName")).stdout)).to.include({ value: "H1" });
  });

  it("AC11: a thrown error goes to stderr as JSON with error and stack, exit 1", async () => {
    const thrown = await run("throw new Error('test error')");
    expect(thrown.code).to.equal(1);
    expect(thrown.stdout).to.equal("");
    expect(json(thrown.stderr)).to.include({ ok: false, error: "Error: test error", code: "EVALUATION_FAILED" });
    expect(json(thrown.stderr).stack).to.match(/^Error: test error/);
  });

  it("AC12: a ReferenceError goes to stderr, exit 1", async () => {
    const result = await run("nonExistentVariable");
    expect(result.code).to.equal(1);
    expect(json(result.stderr).error).to.match(/^ReferenceError: nonExistentVariable is not defined/);
  });

  it("AC13: --max-size truncates a big value and says so", async () => {
    const result = json((await run("--max-size", "100", "'x'.repeat(10000)")).stdout);
    expect(result).to.include({ ok: true, truncated: true });
    expect(JSON.stringify(result.value).length).to.be.within(50, 150);
  });

  it("AC14: an unknown --uid is a JSON error naming it, non-zero exit", async () => {
    const result = await run("--uid", "e999999", "(el) => el.textContent");
    expect(result.code).to.equal(1);
    expect(json(result.stderr)).to.include({ ok: false, code: "NODE_NOT_FOUND" });
    expect(json(result.stderr).error).to.include("e999999");
  });

  it("AC15: a missing --file is a JSON error saying so, non-zero exit", async () => {
    const missing = await run("--file", path.join(dir, "nonexistent", "script.js"));
    expect(missing.code).to.equal(1);
    expect(json(missing.stderr)).to.include({ ok: false, code: "FILE_NOT_FOUND" });
    expect(json(missing.stderr).error).to.match(/not found/);
  });

  it("AC16: console output is captured beside the value", async () => {
    const result = json((await run("console.log('hello'); 42")).stdout) as { value: number; console: { level: string; text: string }[] };
    expect(result.value).to.equal(42);
    expect(result.console.map(({ level, text }) => ({ level, text }))).to.deep.equal([{ level: "log", text: "hello" }]);
  });

  it("AC17: let declarations do not leak into the next call", async () => {
    expect((await run("--code", "let x = 1")).code).to.equal(0);
    const second = await run("--code", "let x = 2; x");
    expect(second.code).to.equal(0);
    expect(json(second.stdout)).to.include({ value: 2 });
  });

  it("AC18: --stdin reads the code from piped stdin, as - does", async () => {
    expect(json((await piped("document.title", "--stdin")).stdout)).to.deep.equal({ ok: true, type: "string", value: "Fixture Home" });
  });

  it("AC19: --code takes code with quotes without shell trouble", async () => {
    expect(json((await run("--code", "document.querySelector('div').id")).stdout)).to.deep.equal({
      ok: true,
      type: "string",
      value: "main",
    });
  });

  it('webctl: 1 + 1 prints {"ok":true,"type":"number","value":2}; undefined prints no value; a promise is awaited', async () => {
    const sum = await run("1", "+", "1");
    expect(sum.code).to.equal(0);
    expect(sum.stdout.trim()).to.equal('{"ok":true,"type":"number","value":2}');
    expect(json((await run("undefined")).stdout)).to.deep.equal({ ok: true, type: "undefined" });
    expect(json((await run("Promise.resolve(42)")).stdout)).to.deep.equal({ ok: true, type: "number", value: 42 });
  });

  it("--timeout 1s on a promise that never settles exits 4 in about a second", async () => {
    // A quick eval started alongside it: the start-up and connection both pay on this machine at this moment.
    const [result, quick] = await Promise.all([run("--timeout", "1s", "new Promise(() => {})"), run("1")]);
    expect(result.code).to.equal(4);
    expect(json(result.stderr)).to.include({ code: "TIMEOUT", error: "the code did not finish within 1000 ms" });
    expect(quick.code).to.equal(0);
    expect(result.ms, `ms, where a quick eval took ${quick.ms}`).to.be.below(quick.ms + 1_000 + ANSWER_GRACE_MS + REPLY_SLACK_MS);
  });

  it("--pretty indents the result for people", async () => {
    const result = await run("--pretty", "({ a: 1 })");
    expect(result.stdout).to.equal(`${JSON.stringify({ ok: true, type: "object", value: { a: 1 } }, null, 2)}\n`);
  });

  it("--help explains every source and flag, and exits 0 without a hub", async () => {
    const help = await tabwire(["eval", "--help"], "ws://127.0.0.1:1");
    expect(help.code).to.equal(0);
    for (const flag of [
      "--code",
      "--file",
      "--stdin",
      "--target",
      "--timeout",
      "--no-await",
      "--max-size",
      "--ref",
      "--uid",
      "--selector",
      "--pretty",
      "exits 4",
    ]) {
      expect(help.stdout).to.include(flag);
    }
  });

  it("mutually exclusive sources are refused with a clear message", async () => {
    const both = await run("--code", "1", "2");
    expect(both.code).to.equal(1);
    expect(json(both.stderr).error).to.equal("give the code one way only: as arguments, --code, --file, or --stdin (or -)");
  });

  it("--selector runs a function on the element it matches; an unknown target exits 3", async () => {
    expect(json((await run("--selector", "#main", "(el) => el.className")).stdout)).to.include({ value: "content" });
    const gone = await tabwire(["eval", "--target", "local:NOSUCHTAB", "1"], hub.url);
    expect(gone.code).to.equal(3);
    expect(json(gone.stderr)).to.include({ code: "TARGET_NOT_FOUND" });
  });

  it("with no hub running it exits 2 within a second, naming tabwire serve", async () => {
    // An eval against the running hub, started alongside it: the start-up both pay on this machine at this moment.
    const [result, reference] = await Promise.all([tabwire(["eval", "1"], "ws://127.0.0.1:1"), run("1")]);
    expect(result.code).to.equal(2);
    expect(json(result.stderr).error).to.match(/tabwire serve/);
    expect(reference.code).to.equal(0);
    expect(result.ms, `ms, where an eval against a running hub took ${reference.ms}`).to.be.below(reference.ms + 1_000 + REPLY_SLACK_MS);
  });

  it("without --target it uses the tab in front (the only one, else the last opened or activated) and names it; with none in front it lists them", async () => {
    const full = "cli-front-full-token";
    const scoped = "cli-front-bg-token";
    const lone = await startTestHub({ HUB_TOKENS: `${full},${scoped}:bgonly`, AUTH_KEY: "cli-front-agent-key" });
    try {
      const other = await connect(lone, { token: full });
      const [initial] = (await other.call<{ tabs: { target: string }[] }>("tabs.list", {})).tabs;
      const single = await tabwire(["eval", "location.href", "--token", full], lone.url);
      expect(json(single.stdout)).to.deep.equal({ ok: true, type: "string", value: "about:blank", target: initial?.target });
      const opened = await openTab(other, "data:text/html,<title>front</title>");
      const front = await tabwire(["eval", "document.title", "--token", full], lone.url);
      expect(json(front.stdout)).to.deep.equal({ ok: true, type: "string", value: "front", target: opened.target });
      await other.call("tabs.activate", { target: initial?.target });
      expect(json((await tabwire(["eval", "location.href", "--token", full], lone.url)).stdout)).to.include({
        value: "about:blank",
        target: initial?.target,
      });
      expect(
        json((await tabwire(["eval", "1", "--target", opened.target, "--token", full], lone.url)).stdout),
        "an explicit --target is not repeated",
      ).to.deep.equal({ ok: true, type: "number", value: 1 });
      for (let i = 0; i < 2; i++) await other.call("tabs.open", { clientId: "bgonly", url: "about:blank", background: true });
      const none = await tabwire(["eval", "1", "--token", scoped], lone.url);
      expect(none.code).to.equal(3);
      expect(json(none.stderr).error).to.match(
        /^2 tabs are open and none was brought to the front through the hub; pick one with --target \(bgonly:/,
      );
      await other.close();
    } finally {
      await lone.stop();
    }
  });
});
