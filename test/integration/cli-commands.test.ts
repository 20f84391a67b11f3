import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { json, firstLineMatching, tabwire } from "../support/cli.js";
import { collect } from "../support/collect.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { imageSize } from "../../src/runtime/image-size.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { evaluate } from "../support/tabs.js";
import { connect, sharedHub } from "../support/test-hub.js";

describe("tabwire tabs / navigate / content / snapshot / screenshot / console / status (CLI, real hub)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TestRpcClient;

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connect(hub);
  });
  after(async () => {
    await client.close();
    await fixtures.close();
  });

  it("opens, lists, navigates, reads, snapshots, captures and closes a tab", async () => {
    const opened = json((await tabwire(["tabs", "open", fixtures.url("index.html"), "--client", "cli"], hub.url)).stdout);
    const target = String(opened.target);
    expect(opened).to.include({ ok: true, clientId: "cli" });
    const listed = json((await tabwire(["tabs", "list"], hub.url)).stdout) as { tabs: { target: string }[] };
    expect(listed.tabs.map((t) => t.target)).to.include(target);
    expect(json((await tabwire(["status"], hub.url)).stdout)).to.include.keys("ok", "clients", "tabs");
    expect(json((await tabwire(["navigate", fixtures.url("tall.html"), "--target", target], hub.url)).stdout)).to.include({ ok: true });
    expect(String(json((await tabwire(["content", "--text", "--target", target], hub.url)).stdout).content)).to.be.a("string");
    expect(String(json((await tabwire(["snapshot", "--target", target], hub.url)).stdout).text)).to.match(/RootWebArea/);
    const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-shot-"));
    const file = path.join(dir, "out.png");
    const shot = json((await tabwire(["screenshot", "-o", file, "--full-page", "--target", target], hub.url)).stdout);
    const size = imageSize(await readFile(file));
    const height = (await evaluate<{ value: number }>(client, target, "document.documentElement.scrollHeight")).value;
    expect(shot).to.include({ ok: true, path: file, width: size.width, height: size.height });
    expect(size.height).to.equal(height);
    expect(json((await tabwire(["tabs", "close", target], hub.url)).stdout)).to.deep.equal({ ok: true, closed: true });
  });

  it("agent run sends the task to the tab's agent and prints its result; tabs activate brings a tab to the front", async () => {
    const { target } = await client.call<{ target: string }>("tabs.open", { clientId: "cli-agent" });
    await client.call("events.subscribe", { topics: ["agents"] });
    const ready = collect<{ target: string }>(client, "agent.ready", (all) => all.some((a) => a.target === target));
    const agent = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: target });
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      agent.onRequest("evaluate", (params) => ({ status: "success", output: `done: ${String((params as { input?: unknown }).input)}` }));
      agent.ready();
      await ready;
      const ran = json((await tabwire(["agent", "run", "summarize", "the", "page", "--target", target], hub.url)).stdout);
      expect(ran).to.deep.include({ ok: true, result: { status: "success", output: "done: summarize the page" } });
      expect(json((await tabwire(["tabs", "activate", target], hub.url)).stdout)).to.include({ ok: true });
    } finally {
      await agent.close();
      await client.call("events.subscribe", { topics: [] });
      await client.call("tabs.close", { target });
    }
  });

  it("console --follow prints messages as the page logs them", async () => {
    const { target } = await client.call<{ target: string }>("tabs.open", {});
    const follow = firstLineMatching(["console", "--follow", "--target", target], hub.url, /followed-message/);
    try {
      // Keep logging until the follower has subscribed and printed one: it cannot be told when it is ready.
      const logger = setInterval(() => void evaluate(client, target, "console.log('followed-message')").catch(() => undefined), 100);
      const line = await follow.line.finally(() => clearInterval(logger));
      expect(json(line)).to.include({ level: "log", text: "followed-message", source: "console", target });
    } finally {
      follow.stop();
      await client.call("tabs.close", { target });
    }
  });

  it("tabwire --help lists every command; each command's --help shows its options and exits 0", async () => {
    const usage = await tabwire(["--help"], "ws://127.0.0.1:1");
    expect(usage.code).to.equal(0);
    const commands = ["serve", "eval", "tabs", "navigate", "snapshot", "content", "screenshot", "console", "agent", "status"];
    for (const command of commands) expect(usage.stdout).to.include(`tabwire ${command}`);
    const options: Record<string, string[]> = {
      tabs: ["open URL", "--client"],
      screenshot: ["-o FILE", "--full-page", "--format"],
      console: ["--follow", "--level"],
      content: ["--text"],
    };
    for (const [command, flags] of Object.entries(options)) {
      const help = await tabwire([command, "--help"], "ws://127.0.0.1:1");
      expect(help.code, command).to.equal(0);
      for (const flag of flags) expect(help.stdout, command).to.include(flag);
    }
    const unknown = await tabwire(["frobnicate"], "ws://127.0.0.1:1");
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('unknown command "frobnicate"');
  });

  it("--pretty indents a command's JSON for people", async () => {
    const pretty = await tabwire(["tabs", "list", "--pretty"], hub.url);
    expect(pretty.code).to.equal(0);
    expect(pretty.stdout).to.equal(`${JSON.stringify(JSON.parse(pretty.stdout), null, 2)}\n`);
    expect(pretty.stdout.split("\n").length).to.be.above(2);
  });
});
