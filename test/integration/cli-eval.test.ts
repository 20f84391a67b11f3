import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { json, tabwire, type Run } from "../support/cli.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, sharedHub, startTestHub } from "../support/test-hub.js";

describe("tabwire eval (the CLI against a real hub and Chromium)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TestRpcClient;
  let tab: OpenedTab;
  const run = (...args: string[]): Promise<Run> => tabwire(["eval", "--target", tab.target, ...args], hub.url);

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connect(hub);
    tab = await openTab(client, fixtures.url("index.html"));
  });
  after(async () => {
    await closeTab(client, tab.target);
    await client.close();
    await fixtures.close();
  });

  it("webctl: 1 + 1 prints {\"ok\":true,\"type\":\"number\",\"value\":2}; undefined prints no value; a promise is awaited", async () => {
    const sum = await run("1", "+", "1");
    expect(sum.code).to.equal(0);
    expect(sum.stdout.trim()).to.equal('{"ok":true,"type":"number","value":2}');
    expect(json((await run("undefined")).stdout)).to.deep.equal({ ok: true, type: "undefined" });
    expect(json((await run("Promise.resolve(42)")).stdout)).to.deep.equal({ ok: true, type: "number", value: 42 });
  });

  it("AC11/AC12: exceptions go to stderr as JSON with exit code 1 and the stack", async () => {
    const thrown = await run("throw new Error('test error')");
    expect(thrown.code).to.equal(1);
    expect(json(thrown.stderr)).to.include({ ok: false, error: "Error: test error", code: "EVALUATION_FAILED" });
    expect(json(thrown.stderr).stack).to.match(/^Error: test error/);
    expect(json((await run("nonExistentVariable")).stderr).error).to.match(/^ReferenceError/);
  });

  it("--timeout 1s on a promise that never settles exits 4 in about a second", async () => {
    const result = await run("--timeout", "1s", "new Promise(() => {})");
    expect(result.code).to.equal(4);
    expect(json(result.stderr).code).to.equal("TIMEOUT");
    expect(result.ms).to.be.below(4_000);
  });

  it("AC6, AC13, AC16, AC17, AC19: --no-await, --max-size, console, isolation, --code", async () => {
    expect(json((await run("--no-await", "new Promise(r => setTimeout(r, 100))")).stdout)).to.include({ type: "object", subtype: "promise" });
    expect(json((await run("--max-size", "100", "'x'.repeat(10000)")).stdout)).to.include({ truncated: true });
    expect(json((await run("console.log('hello'); 42")).stdout).console).to.have.length(1);
    await run("--code", "let x = 1");
    expect(json((await run("--code", "let x = 2; x")).stdout)).to.include({ value: 2 });
    expect(json((await run("--code", "document.querySelector('div').id")).stdout)).to.include({ value: "main" });
  });

  it("AC8, AC9, AC15, AC18: --file, - and --stdin with piped code, a missing file", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-cli-"));
    const file = path.join(dir, "script.js");
    await writeFile(file, "document.title");
    expect(json((await run("--file", file)).stdout)).to.include({ value: "Fixture Home" });
    expect(json((await tabwire(["eval", "--target", tab.target, "-"], hub.url, "document.title")).stdout)).to.include({ value: "Fixture Home" });
    expect(json((await tabwire(["eval", "--target", tab.target, "--stdin"], hub.url, "document.title")).stdout)).to.include({ value: "Fixture Home" });
    const missing = await run("--file", path.join(dir, "nope.js"));
    expect(missing.code).to.equal(1);
    expect(json(missing.stderr).error).to.match(/not found/);
  });

  it("mutually exclusive sources, --ref/--selector element functions, and an unknown target (exit 3)", async () => {
    const both = await run("--code", "1", "2");
    expect(both.code).to.equal(1);
    expect(json(both.stderr).error).to.match(/one way only/);
    expect(json((await run("--selector", "#main", "(el) => el.className")).stdout)).to.include({ value: "content" });
    const gone = await tabwire(["eval", "--target", "local:NOSUCHTAB", "1"], hub.url);
    expect(gone.code).to.equal(3);
  });

  it("with no hub running it exits 2 within a second, naming tabwire serve", async () => {
    const result = await tabwire(["eval", "1"], "ws://127.0.0.1:1");
    expect(result.code).to.equal(2);
    expect(json(result.stderr).error).to.match(/tabwire serve/);
    expect(result.ms).to.be.below(3_000);
  });

  it("without --target it uses the only tab, and with several it lists them", async () => {
    const lone = await startTestHub();
    try {
      const single = await tabwire(["eval", "location.href"], lone.url);
      expect(json(single.stdout)).to.include({ ok: true, value: "about:blank" });
      const other = await connect(lone);
      await other.call("tabs.open", {});
      const many = await tabwire(["eval", "1"], lone.url);
      expect(many.code).to.equal(3);
      expect(json(many.stderr).error).to.match(/2 tabs are open; pick one with --target/);
      await other.close();
    } finally {
      await lone.stop();
    }
  });
});
