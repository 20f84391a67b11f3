import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { json, tabwireLoading } from "../support/cli.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, sharedHub } from "../support/test-hub.js";

// What a command that talks to a running hub may load: the command line, the client and the protocol's names, the
// settings it reads (config and its helpers, the limit, trace and timeline settings among them, ACCESS_FILE's host reader
// in egress-rules, the error table); and of packages, ws, json-rpc-2.0 and dotenv.
const CLIENT_SIDE =
  /^dist\/src\/(cli\.js|cli\/|client\/|protocol\/|(config|config-error|config-values|limit-settings|access-file|egress-rules|capabilities|trace-settings|timeline-settings|errors|target-id)\.js$)/;
const CLIENT_PACKAGES = ["dotenv", "json-rpc-2.0", "ws"];

const projectFiles = (loaded: string[]): string[] => loaded.filter((name) => name.startsWith("dist/"));
const packages = (loaded: string[]): string[] => loaded.filter((name) => !name.startsWith("dist/") && !name.startsWith("node:"));

describe("tabwire loads only what a command runs (the hub's code stays out of commands that talk to a hub)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let client: TestRpcClient;
  let tab: OpenedTab;

  before(async () => {
    hub = await sharedHub();
    client = await connect(hub);
    tab = await openTab(client);
  });
  after(async () => {
    await closeTab(client, tab.target);
    await client.close();
  });

  it("tabwire --help and tabwire eval --help load no package and nothing beyond the command line", async () => {
    for (const args of [["--help"], ["eval", "--help"]]) {
      const { run, loaded } = await tabwireLoading(args, hub.url);
      expect(run.code, args.join(" ")).to.equal(0);
      expect(run.stdout, args.join(" ")).to.match(/^tabwire/);
      expect(packages(loaded), args.join(" ")).to.deep.equal([]);
      expect(
        projectFiles(loaded).filter((file) => !/^dist\/src\/cli(\.js|\/)/.test(file)),
        args.join(" "),
      ).to.deep.equal([]);
    }
  });

  it("tabwire eval against a running hub loads the client, not the hub (no hub.js, cdp/, log.js, MCP SDK)", async () => {
    const { run, loaded } = await tabwireLoading(["eval", "--target", tab.target, "1+1"], hub.url);
    expect(run.code, run.stderr).to.equal(0);
    expect(json(run.stdout)).to.deep.equal({ ok: true, type: "number", value: 2 });
    expect(projectFiles(loaded)).to.include("dist/src/client/tabwire-client.js");
    expect(projectFiles(loaded).filter((file) => !CLIENT_SIDE.test(file))).to.deep.equal([]);
    expect(packages(loaded).filter((name) => !CLIENT_PACKAGES.includes(name))).to.deep.equal([]);
  });

  it("the other commands (tabs list) load the client, not the hub", async () => {
    const { run, loaded } = await tabwireLoading(["tabs", "list"], hub.url);
    expect(run.code, run.stderr).to.equal(0);
    expect((json(run.stdout) as { tabs: { target: string }[] }).tabs.map((t) => t.target)).to.include(tab.target);
    expect(projectFiles(loaded).filter((file) => !CLIENT_SIDE.test(file))).to.deep.equal([]);
    expect(packages(loaded).filter((name) => !CLIENT_PACKAGES.includes(name))).to.deep.equal([]);
  });

  it("tabwire timeline export loads the client, not the hub; tabwire timeline view no package at all", async () => {
    const { run, loaded } = await tabwireLoading(["timeline", "export", "--target", tab.target], hub.url);
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout.split("\n")[0] ?? "")).to.include({ tabwireTimeline: 1, target: tab.target });
    expect(projectFiles(loaded).filter((file) => !CLIENT_SIDE.test(file))).to.deep.equal([]);
    expect(packages(loaded).filter((name) => !CLIENT_PACKAGES.includes(name))).to.deep.equal([]);
    const viewed = await tabwireLoading(["timeline", "view", "/nonexistent/timeline.jsonl"], hub.url);
    expect(viewed.run.code).to.equal(2);
    expect(packages(viewed.loaded)).to.deep.equal([]);
    expect(projectFiles(viewed.loaded).filter((file) => !/^dist\/src\/cli(\.js|\/)/.test(file))).to.deep.equal([]);
  });

  it("tabwire mcp relaying to a running hub does not load the hub (it starts one only when none answers)", async () => {
    const { run, loaded } = await tabwireLoading(["mcp", "--hub", hub.url], hub.url);
    expect(run.code, run.stderr).to.equal(0);
    expect(projectFiles(loaded)).to.include("dist/src/cli/mcp-command.js");
    expect(projectFiles(loaded).filter((file) => !CLIENT_SIDE.test(file))).to.deep.equal([]);
  });
});
