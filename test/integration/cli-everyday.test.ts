import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { json, tabwire, tabwireIn } from "../support/cli.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, sharedHub, startTestHub } from "../support/test-hub.js";

const TOKEN = "cli-everyday-token";
const SCOPED = "cli-everyday-scoped";

/** What a failed command said on stderr, as JSON. */
const failure = (stderr: string): { error: string; code: string } => json(stderr) as { error: string; code: string };

describe("the CLI in everyday use: refused tokens, .env, --pretty, typos, syntax errors, malformed targets (real hub)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let client: TestRpcClient;
  let fixtures: FixtureServer;
  let tab: OpenedTab;

  before(async () => {
    hub = await sharedHub();
    client = await connect(hub);
    fixtures = await startFixtureServer();
    tab = await openTab(client, fixtures.url("form.html"));
  });
  after(async () => {
    await closeTab(client, tab.target);
    await client.close();
    await fixtures.close();
  });

  it("a hub that refuses the token is exit 1 saying to pass --token (401) or when to retry (429), never 'not reachable'", async () => {
    const guarded = await startTestHub({
      HUB_TOKENS: `${TOKEN},${SCOPED}:mine`,
      AUTH_KEY: "cli-everyday-agent",
      AUTH_FAILURES_PER_MIN: "2",
    });
    try {
      expect((await tabwire(["tabs", "list", "--token", TOKEN], guarded.url)).code).to.equal(0);
      const scoped = await tabwire(["tabs", "open", "about:blank", "--client", "theirs", "--token", SCOPED], guarded.url);
      expect(scoped.code).to.equal(1);
      expect(failure(scoped.stderr)).to.include({ code: "FORBIDDEN" });
      expect(failure(scoped.stderr).error).to.match(/token may not .* client theirs/);

      const missing = await tabwire(["tabs", "list"], guarded.url);
      expect(missing.code, missing.stderr).to.equal(1);
      expect(failure(missing.stderr).code).to.equal("UNAUTHORIZED");
      expect(failure(missing.stderr).error).to.match(/needs a token.*--token T or TABWIRE_TOKEN/);
      expect(failure(missing.stderr).error).to.not.match(/not reachable|tabwire serve/);

      const wrong = await tabwire(["eval", "1", "--target", "local:ABC", "--token", "not-the-token"], guarded.url);
      expect(wrong.code, wrong.stderr).to.equal(1);
      expect(failure(wrong.stderr).code).to.equal("UNAUTHORIZED");
      expect(failure(wrong.stderr).error).to.match(/refused the token: it is not one of the hub's tokens.*--token T or TABWIRE_TOKEN/);

      // Two failures a minute from this address: the third attempt is refused before its token is read.
      const limited = await tabwire(["tabs", "list", "--token", TOKEN], guarded.url);
      expect(limited.code, limited.stderr).to.equal(1);
      expect(failure(limited.stderr).code).to.equal("RATE_LIMITED");
      expect(failure(limited.stderr).error).to.match(/too many failed authentications.*retry in \d+ s/);
      expect(failure(limited.stderr).error).to.not.match(/not reachable/);
    } finally {
      await guarded.stop();
    }
  });

  it("finds the hub at PORT (and HOST) of the .env in its folder when TABWIRE_URL is unset, as the hub does", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "tabwire-cli-env-"));
    try {
      const port = new URL(hub.url).port;
      await writeFile(path.join(folder, ".env"), `HOST=0.0.0.0\nPORT=${port}\n`);
      const listed = await tabwireIn(["tabs", "list"], { cwd: folder });
      expect(listed.code, listed.stderr).to.equal(0);
      expect((json(listed.stdout) as { tabs: { target: string }[] }).tabs.map((t) => t.target)).to.include(tab.target);
      // TABWIRE_URL, when set, still wins over HOST and PORT.
      const named = await tabwireIn(["tabs", "list"], { cwd: folder, env: { TABWIRE_URL: "ws://127.0.0.1:1" } });
      expect(named.code).to.equal(2);
      expect(failure(named.stderr).error).to.include("ws://127.0.0.1:1");
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("snapshot --pretty prints the tree's lines as they are, not JSON; the id and the tab go to stderr", async () => {
    const plain = await tabwire(["snapshot", "--target", tab.target], hub.url);
    const pretty = await tabwire(["snapshot", "--pretty", "--target", tab.target], hub.url);
    expect(pretty.code, pretty.stderr).to.equal(0);
    // The same tree as the JSON's text (refs aside: a snapshot may number them anew).
    const withoutRefs = (text: string): string => text.replace(/\[ref=e\d+\]/g, "[ref]");
    expect(withoutRefs(pretty.stdout)).to.equal(withoutRefs(`${String(json(plain.stdout).text)}\n`));
    expect(pretty.stdout.split("\n").length).to.be.above(3);
    expect(pretty.stdout).to.match(/^- RootWebArea/);
    expect(pretty.stdout).to.not.include('\\"');
    expect(pretty.stderr).to.match(/^# snapshot [0-9a-f-]{36}\n$/);
    const paged = await tabwire(["snapshot", "--pretty", "--max-chars", "100", "--target", tab.target], hub.url);
    expect(paged.stderr).to.match(/more: tabwire snapshot --cursor \S+/);
  });

  it("a mistyped command gets the nearest command as a suggestion, exit 1; a word like none gets the usage", async () => {
    for (const [typed, meant] of [
      ["snapsot", "snapshot"],
      ["evl", "eval"],
      ["tab", "tabs"],
      ["screenshto", "screenshot"],
    ]) {
      const run = await tabwire([typed as string], "ws://127.0.0.1:1");
      expect(run.code, typed).to.equal(1);
      expect(run.stderr, typed).to.include(`unknown command "${typed}"; did you mean ${meant}?`);
    }
    const unknown = await tabwire(["frobnicate"], "ws://127.0.0.1:1");
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.not.include("did you mean");
    expect(unknown.stderr).to.include("Usage:");
  });

  it("eval \"1+\" reports the caller's syntax error (end of input), not the hub's wrapper ('}')", async () => {
    const run = await tabwire(["eval", "1+", "--target", tab.target], hub.url);
    expect(run.code).to.equal(1);
    expect(failure(run.stderr)).to.include({ code: "EVALUATION_FAILED", error: "SyntaxError: Unexpected end of input" });
  });

  it("a malformed --target (or TARGET) says what a target looks like, not a regular expression", async () => {
    for (const args of [
      ["snapshot", "--target", "bogus"],
      ["eval", "1", "--target", "local:"],
      ["tabs", "close", "no-colon"],
    ]) {
      const run = await tabwire(args, hub.url);
      expect(run.code, args.join(" ")).to.equal(1);
      const { error, code } = failure(run.stderr);
      expect(code, args.join(" ")).to.equal("INVALID_PARAMS");
      expect(error, args.join(" ")).to.match(/clientId:tabId, as `tabwire tabs` names it \(e\.g\. local:[0-9A-F]+\)/);
      expect(error, args.join(" ")).to.not.match(/\^|\{1,128\}|\[A-Za-z/);
    }
  });
});
