import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { TestAgent } from "../fixtures/wire-agent.js";
import { json, tabwire } from "../support/cli.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { upgradeStatus } from "../support/http-request.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";
import type { Hub } from "../../src/hub.js";

const ALPHA = "timeline-alpha-token";
const BETA = "timeline-beta-token";
const BETA_AGENT_KEY = "timeline-beta-agent-key";
const PASSWORD = "hunter2-pass-81f3";
const URL_SECRET = "url-token-0c4d77";
const COOKIE_VALUE = "cookie-value-5e2a91";
const SECRETS = [PASSWORD, URL_SECRET, COOKIE_VALUE, ALPHA, BETA, BETA_AGENT_KEY];
const MAX_BYTES = 512 * 1024;
const MAX_ENTRIES = 2_000;
const TARGET_NOT_FOUND = -32002;
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

interface Picture {
  data: string;
  width: number;
  height: number;
}
interface Entry {
  seq: number;
  at: number;
  kind: string;
  summary: string;
  method?: string;
  caller?: { kind: string; who: string };
  outcome?: string;
  durationMs?: number;
  traceId?: string;
  url?: string;
  status?: number;
  before?: Picture;
  after?: Picture;
}
interface Timeline {
  target: string;
  entries: Entry[];
  next: number;
  total: number;
  closed?: boolean;
}

/** Every entry of a tab's timeline, read page after page with `next`. */
async function readAll(client: TestRpcClient, target: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (let since = 0; ;) {
    const page = await client.call<Timeline>("timeline.get", { target, since, limit: 1_000 });
    entries.push(...page.entries);
    if (page.entries.length < 1_000) return entries;
    since = page.next;
  }
}

describe("timeline: a tab's calls, console, network and pictures in one bounded record (real hub, Chromium, fixture pages)", function () {
  this.timeout(90_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;
  let folder: string;

  before(async () => {
    fixtures = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKENS: `${ALPHA}:alpha,${BETA}:beta`,
      AGENT_KEYS: `${BETA_AGENT_KEY}:beta`,
      TIMELINE_PICTURES: "on",
      TIMELINE_MAX_ENTRIES: String(MAX_ENTRIES),
      TIMELINE_MAX_BYTES: String(MAX_BYTES),
    });
    alpha = await connect(hub, { token: ALPHA });
    beta = await connect(hub, { token: BETA });
    folder = await mkdtemp(path.join(os.tmpdir(), "tabwire-timeline-"));
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await fixtures?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  describe("an agent-like script: navigate, snapshot, fill a login form with a password, click, wait.for", () => {
    let tab: OpenedTab;
    let entries: Entry[];
    let exported: { content: string; entries: number; bytes: number };

    before(async () => {
      tab = await openTab(alpha, "about:blank", { clientId: "alpha" });
      const { target } = tab;
      await alpha.call("navigate", { target, url: `${fixtures.url("timeline-login.html")}?token=${URL_SECRET}` });
      await alpha.call("snapshot", { target });
      await alpha.call("fill", { target, selector: "#user", value: "ada" });
      await alpha.call("fill", { target, selector: "#password", value: PASSWORD, traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` });
      await alpha.call("click", { target, selector: "#go" });
      await alpha.call("wait.for", { target, text: "Welcome Ada" });
      entries = (await alpha.call<Timeline>("timeline.get", { target })).entries;
      exported = await alpha.call("timeline.export", { target });
    });
    after(() => closeTab(alpha, tab.target));

    it("has every step in order, each with its caller, outcome and duration, and the caller's trace id", () => {
      const calls = entries.filter((entry) => entry.kind === "call");
      expect(calls.map((call) => call.summary)).to.deep.equal([
        `navigate url="${fixtures.url("timeline-login.html")}?token=[redacted]"`,
        "snapshot",
        'fill selector="#user" value=(3 characters)',
        `fill selector="#password" value=(${PASSWORD.length} characters)`,
        'click selector="#go"',
        "wait.for text=(11 characters)",
      ]);
      for (const call of calls) {
        expect(call.caller).to.deep.equal({ kind: "rpc", who: "token-0" });
        expect(call.outcome).to.equal("ok");
        expect(call.durationMs).to.be.a("number").and.at.least(0);
      }
      expect(calls[3]?.traceId).to.equal(TRACE_ID);
      expect(calls[2]).to.not.have.property("traceId");
      expect(entries.map((entry) => entry.seq)).to.deep.equal(entries.map((_, index) => index + entries[0]!.seq));
    });

    it("has the navigation, console messages and requests between the steps that set them off", () => {
      const seqOf = (find: (entry: Entry) => boolean, what: string): number => {
        const found = entries.find(find);
        expect(found, what).to.not.equal(undefined);
        return found!.seq;
      };
      const passwordFill = seqOf((e) => e.summary.startsWith('fill selector="#password"'), "the password's fill");
      const click = seqOf((e) => e.method === "click", "the click");
      const waited = seqOf((e) => e.method === "wait.for", "wait.for");
      const navigation = entries.find((e) => e.kind === "navigation" && e.url?.includes("timeline-login.html"));
      expect(navigation?.url).to.equal(`${fixtures.url("timeline-login.html")}?token=[redacted]`);
      expect(seqOf((e) => e.kind === "console" && e.summary === "login page ready", "the page's first log")).to.be.below(passwordFill);
      const signingIn = seqOf((e) => e.kind === "console" && e.summary === "signing in as ada", "the click's log");
      const request = entries.find((e) => e.kind === "network" && e.url?.includes("/data.json"));
      expect(request).to.include({ method: "GET", status: 200 });
      for (const seq of [signingIn, request!.seq]) expect(seq).to.be.above(passwordFill).and.below(waited);
      expect(signingIn).to.be.below(click);
    });

    it("gives each action a small before and after JPEG that differ where the page changed; a read gets none", () => {
      const click = entries.find((e) => e.method === "click")!;
      for (const picture of [click.before, click.after]) {
        expect(picture?.data.startsWith("/9j/"), "a JPEG").to.equal(true);
        expect(Buffer.from(picture!.data, "base64").length).to.be.below(30 * 1024);
        expect(picture!.width).to.be.within(1, 320);
      }
      // The click turned the page green: the two pictures differ.
      expect(click.before!.data).to.not.equal(click.after!.data);
      const navigate = entries.find((e) => e.method === "navigate")!;
      expect(navigate.before && navigate.after).to.not.equal(undefined);
      const snapshot = entries.find((e) => e.method === "snapshot")!;
      expect(snapshot).to.not.have.any.keys("before", "after");
    });

    it("has no password, cookie value or token in timeline.get or timeline.export", () => {
      const text = JSON.stringify(entries) + exported.content;
      for (const secret of SECRETS) expect(text, secret).to.not.include(secret);
      expect(text).to.not.include(encodeURIComponent(PASSWORD));
    });

    it("exports one JSON-lines file: a header with the tab, then the entries with their pictures inline", () => {
      const lines = exported.content
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines[0]).to.include({ tabwireTimeline: 1, target: tab.target, entries: lines.length - 1 });
      expect(exported.entries).to.equal(lines.length - 1);
      expect(exported.bytes).to.equal(Buffer.byteLength(exported.content));
      const click = lines.find((line) => line.method === "click") as unknown as Entry;
      expect(click.before?.data).to.equal(entries.find((e) => e.method === "click")!.before!.data);
    });
  });

  describe("per client", () => {
    let tab: OpenedTab;

    before(async () => {
      tab = await openTab(alpha, fixtures.url("timeline-login.html"), { clientId: "alpha" });
      await alpha.call("evaluate", { target: tab.target, expression: "1 + 1" });
    });
    after(() => closeTab(alpha, tab.target));

    it("another client, its agent and a stranger get nothing, as for a tab that does not exist; the owner reads it after the tab closed", async () => {
      const missing = `alpha:${"F".repeat(tab.tabId.length)}`;
      for (const method of ["timeline.get", "timeline.export"]) {
        const hidden = await rpcFailure(beta.call(method, { target: tab.target }));
        const absent = await rpcFailure(beta.call(method, { target: missing }));
        expect(hidden.code, method).to.equal(TARGET_NOT_FOUND);
        expect(hidden.message.replace(tab.target, "<t>"), method).to.equal(absent.message.replace(missing, "<t>"));
      }
      const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${BETA_AGENT_KEY}`, clientId: "beta:worker" });
      try {
        expect(await agent.registration()).to.include({ status: "accepted" });
        const refused = (await agent.call("timeline.get", { target: tab.target }).catch((error: unknown) => error)) as { code?: number };
        expect(refused.code).to.equal(TARGET_NOT_FOUND);
      } finally {
        await agent.close();
      }
      expect(await upgradeStatus(`${hub.url}/rpc`)).to.equal(401);
      // Nothing of the refused calls entered the owner's timeline.
      const own = await readAll(alpha, tab.target);
      expect(own.filter((e) => e.kind === "call").map((e) => e.method)).to.deep.equal(["evaluate"]);
      await alpha.call("tabs.close", { target: tab.target });
      const closed = await alpha.call<Timeline>("timeline.get", { target: tab.target });
      expect(closed.closed).to.equal(true);
      expect(closed.entries.map((e) => e.summary)).to.include.members(["evaluate expression=(5 characters)", "tab closed (closed)"]);
      expect((await rpcFailure(beta.call("timeline.get", { target: tab.target }))).code).to.equal(TARGET_NOT_FOUND);
    });
  });

  describe("bounds", () => {
    let tab: OpenedTab;
    before(async () => (tab = await openTab(alpha, fixtures.url("timeline-login.html"), { clientId: "alpha" })));
    after(() => closeTab(alpha, tab.target));

    it("a page logging 20,000 messages keeps the timeline within TIMELINE_MAX_ENTRIES and TIMELINE_MAX_BYTES, the newest kept", async () => {
      const expression = `for (let i = 0; i < 20000; i++) console.log("spam " + i + " " + "x".repeat(200)); 0`;
      await alpha.call("evaluate", { target: tab.target, expression });
      let newest: Entry | undefined;
      // Read page after page until the newest message arrives (the console's events come after evaluate answers).
      const deadline = Date.now() + 30_000;
      for (let since = 0; newest === undefined && Date.now() < deadline;) {
        const page = await alpha.call<Timeline>("timeline.get", { target: tab.target, since, limit: 1_000 });
        expect(page.total).to.be.at.most(MAX_ENTRIES);
        newest = page.entries.find((entry) => entry.summary.startsWith("spam 19999 "));
        since = page.next;
      }
      expect(newest?.summary).to.match(/^spam 19999 x+…?$/);
      const exported = await alpha.call<{ bytes: number; entries: number }>("timeline.export", { target: tab.target });
      expect(exported.bytes).to.be.at.most(MAX_BYTES);
      expect(exported.entries).to.be.at.most(MAX_ENTRIES);
      // The console's own list is not the timeline's to bound: it still answers.
      const { messages } = await alpha.call<{ messages: { text: string }[] }>("console.list", { target: tab.target, limit: 1 });
      expect(messages[0]?.text).to.match(/^spam 19999/);
    });
  });

  describe("tabwire timeline", () => {
    it("exports a tab's timeline to a file and views it after the hub stopped, with no hub", async () => {
      const tab = await openTab(alpha, fixtures.url("timeline-login.html"), { clientId: "alpha" });
      await alpha.call("fill", { target: tab.target, selector: "#user", value: "ada" });
      await alpha.call("click", { target: tab.target, selector: "#go" });
      const file = path.join(folder, "timeline.jsonl");
      const exportRun = await tabwire(["timeline", "export", "--target", tab.target, "--out", file, "--token", ALPHA], hub.url);
      expect(exportRun.code, exportRun.stderr).to.equal(0);
      expect(json(exportRun.stdout)).to.include({ ok: true, path: file });
      await closeTab(alpha, tab.target);
      await Promise.all([alpha.close(), beta.close()]);
      await hub.stop();
      const url = hub.url;
      hub = { stop: () => Promise.resolve() } as unknown as Hub;
      const viewed = await tabwire(["timeline", "view", file], url);
      expect(viewed.code, viewed.stderr).to.equal(0);
      const rows = viewed.stdout.split("\n");
      expect(rows[0]).to.include(`timeline of ${tab.target}`);
      const fill = rows.findIndex((row) =>
        /\bcall\s+fill selector="#user" value=\(3 characters\) \[rpc token-0\] \[pictures: before, after\]\s+ok\s+\d/.test(row),
      );
      const click = rows.findIndex((row) => /\bcall\s+click selector="#go"/.test(row));
      expect(fill, viewed.stdout).to.be.above(0);
      expect(click).to.be.above(fill);
      expect(viewed.stdout).to.not.include("/9j/");
      await writeFile(path.join(folder, "not-a-timeline.jsonl"), '{"hello":1}\n');
      const wrong = await tabwire(["timeline", "view", path.join(folder, "not-a-timeline.jsonl")], url);
      expect(wrong.code).to.equal(2);
      expect(wrong.stderr).to.include("not an exported timeline");
    });
  });
});
