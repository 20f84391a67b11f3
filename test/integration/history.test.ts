import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { json, tabwire } from "../support/cli.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { call, result } from "../support/mcp-tools.js";
import { failure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connectClient, sharedHub } from "../support/test-hub.js";

const INVALID_PARAMS = -32602;

describe("tabs.back, tabs.forward, tabs.reload and tabs.stop over /rpc, MCP and the CLI (real hub, real Chromium)", function () {
  this.timeout(40_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TabwireClient;

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connectClient(hub);
  });
  after(async () => {
    await client.close();
    await fixtures.close();
  });

  const home = (): { url: string; title: string } => ({ url: fixtures.url("index.html"), title: "Fixture Home" });
  const other = (): { url: string; title: string } => ({ url: fixtures.url("other.html"), title: "Other Page" });
  // Over MCP a tool that loads a page also answers the page's snapshot (docs/mcp.md): the page, and the snapshot's id.
  const loaded = (answer: Record<string, unknown>, page: { url: string; title: string }): void => {
    const { snapshot, ...rest } = answer as { snapshot?: { snapshotId?: unknown } };
    expect(rest).to.deep.equal(page);
    expect(snapshot).to.deep.include(page);
    expect(snapshot?.snapshotId).to.be.a("string");
  };

  /** A tab whose history is about:blank, index.html, other.html, on other.html. */
  async function twoPages(): Promise<OpenedTab> {
    const tab = await openTab(client, fixtures.url("index.html"));
    await client.call("navigate", { target: tab.target, url: fixtures.url("other.html") });
    return tab;
  }

  describe("over /rpc", () => {
    it("back and forward move through the tab's history and answer the URL and title shown", async () => {
      const tab = await twoPages();
      try {
        expect(await client.call("tabs.back", { target: tab.target })).to.deep.equal(home());
        expect((await evaluate(client, tab.target, "document.title")).value).to.equal("Fixture Home");
        expect(await client.call("tabs.forward", { target: tab.target })).to.deep.equal(other());
        expect((await evaluate(client, tab.target, "document.title")).value).to.equal("Other Page");
        expect(await client.call("tabs.back", { target: tab.target, waitUntil: "domcontentloaded" })).to.deep.equal(home());
      } finally {
        await closeTab(client, tab.target);
      }
    });

    it("back from the first page and forward from the last are INVALID_PARAMS saying so, the tab left as it is", async () => {
      const tab = await twoPages();
      try {
        const forward = await failure(client.call("tabs.forward", { target: tab.target }));
        expect(forward.code).to.equal(INVALID_PARAMS);
        expect(forward.message).to.include("no page to go forward to").and.include(fixtures.url("other.html"));
        await client.call("tabs.back", { target: tab.target });
        expect(await client.call("tabs.back", { target: tab.target })).to.deep.equal({ url: "about:blank", title: "about:blank" });
        const back = await failure(client.call("tabs.back", { target: tab.target }));
        expect([back.code, back.data]).to.deep.equal([
          INVALID_PARAMS,
          { errors: [{ path: "/target", message: "the tab has no page to go back to: about:blank is the first of its history" }] },
        ]);
        expect((await evaluate(client, tab.target, "location.href")).value).to.equal("about:blank");
      } finally {
        await closeTab(client, tab.target);
      }
    });

    it("reload loads the page again: what the page's scripts left is gone", async () => {
      const tab = await twoPages();
      try {
        await evaluate(client, tab.target, "window.leftBehind = 1");
        expect(await client.call("tabs.reload", { target: tab.target })).to.deep.equal(other());
        expect((await evaluate(client, tab.target, "typeof window.leftBehind")).value).to.equal("undefined");
      } finally {
        await closeTab(client, tab.target);
      }
    });

    it("while a navigation swaps the tab's document, each move answers a result or a typed error, never INTERNAL_ERROR", async () => {
      const tab = await twoPages();
      try {
        const codes = new Set<number | "ok">();
        // Chrome refuses Page commands while the frame is between two documents (a data: page commits in another process).
        for (const url of ["data:,x", "about:blank", "data:text/html,<p>y</p>", fixtures.url("index.html")]) {
          const navigating = client.call("navigate", { target: tab.target, url, waitUntil: "none" });
          const moves = (["tabs.back", "tabs.forward", "tabs.reload", "tabs.stop"] as const).map((method) =>
            client.call(method, { target: tab.target, timeoutMs: 5000 }).then(
              () => "ok" as const,
              (error: { code: number }) => error.code,
            ),
          );
          for (const code of await Promise.all(moves)) codes.add(code);
          await navigating.catch(() => {});
        }
        expect([...codes]).to.not.include(-32603);
      } finally {
        await closeTab(client, tab.target);
      }
    });

    it("a reload past its budget is TIMEOUT naming its URL; back replaces a load that never ends", async () => {
      const tab = await twoPages();
      try {
        await client.call("navigate", { target: tab.target, url: `${fixtures.origin}/hang`, waitUntil: "none" });
        expect(await client.call("tabs.back", { target: tab.target })).to.deep.equal(home());
        await client.call("navigate", { target: tab.target, url: `${fixtures.origin}/hang?after=home`, waitUntil: "none" });
        expect(await client.call("tabs.stop", { target: tab.target })).to.deep.equal(home());
        await evaluate(client, tab.target, "history.replaceState(null, '', '/hang?reload=1')");
        const error = await failure(client.call("tabs.reload", { target: tab.target, timeoutMs: 1000 }));
        expect(error.code).to.equal(-32001);
        expect(error.message).to.include(`${fixtures.origin}/hang?reload=1 did not load within 1000 ms`);
      } finally {
        await closeTab(client, tab.target);
      }
    });
  });

  it("over MCP: tabs_back, tabs_forward, tabs_reload and tabs_stop are tools of the session", async () => {
    const mcp = new Client({ name: "tabwire-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${hub.url.replace(/^ws/, "http")}/mcp`)));
    try {
      const { tools } = await mcp.listTools();
      for (const name of ["tabs_back", "tabs_forward", "tabs_reload", "tabs_stop"]) expect(tools.map((tool) => tool.name)).to.include(name);
      const { target } = await result<{ target: string }>(mcp, "tabs_open", { url: fixtures.url("index.html") });
      await result(mcp, "navigate", { target, url: fixtures.url("other.html") });
      loaded(await result(mcp, "tabs_back", { target }), home());
      loaded(await result(mcp, "tabs_forward", { target }), other());
      loaded(await result(mcp, "tabs_reload", { target }), other());
      expect(await result(mcp, "tabs_stop", { target })).to.deep.equal(other());
      const refused = await call(mcp, "tabs_forward", { target });
      expect(refused.isError).to.equal(true);
      expect(refused.content[0]?.text).to.match(/^INVALID_PARAMS \(-32602\): .*no page to go forward to/);
    } finally {
      await mcp.close();
    }
  });

  it("over MCP, another session (another client) gets TARGET_NOT_FOUND for them on a tab not its own, which stays where it was", async () => {
    const mcpUrl = new URL(`${hub.url.replace(/^ws/, "http")}/mcp`);
    const [owner, stranger] = [new Client({ name: "owner", version: "1.0.0" }), new Client({ name: "stranger", version: "1.0.0" })];
    await Promise.all([
      owner.connect(new StreamableHTTPClientTransport(mcpUrl)),
      stranger.connect(new StreamableHTTPClientTransport(mcpUrl)),
    ]);
    try {
      const { target } = await result<{ target: string }>(owner, "tabs_open", { url: fixtures.url("index.html") });
      await result(owner, "navigate", { target, url: fixtures.url("other.html") });
      await result(owner, "tabs_back", { target });
      for (const name of ["tabs_back", "tabs_forward", "tabs_reload", "tabs_stop"]) {
        const answer = await call(stranger, name, { target });
        expect(answer.isError, name).to.equal(true);
        expect(answer.content[0]?.text, name).to.match(/^TARGET_NOT_FOUND/);
      }
      const shown = await result<{ value: string }>(owner, "evaluate", { target, expression: "location.href + ' ' + history.length" });
      expect(shown.value).to.equal(`${fixtures.url("index.html")} 3`);
      loaded(await result(owner, "tabs_forward", { target }), other());
    } finally {
      await Promise.all([owner.close(), stranger.close()]);
    }
  });

  it("from the CLI: back, forward, reload and stop, each with --timeout; navigate and tabs open take --timeout", async () => {
    const tab = await twoPages();
    try {
      const on = ["--target", tab.target];
      expect(json((await tabwire(["back", ...on, "--timeout", "10s"], hub.url)).stdout)).to.deep.equal({ ok: true, ...home() });
      expect(json((await tabwire(["forward", ...on], hub.url)).stdout)).to.deep.equal({ ok: true, ...other() });
      expect(json((await tabwire(["reload", ...on, "--timeout", "10s"], hub.url)).stdout)).to.deep.equal({ ok: true, ...other() });
      expect(json((await tabwire(["stop", ...on], hub.url)).stdout)).to.deep.equal({ ok: true, ...other() });
      const noPage = await tabwire(["forward", ...on], hub.url);
      expect([noPage.code, json(noPage.stderr).code]).to.deep.equal([1, "INVALID_PARAMS"]);
      const hang = `${fixtures.origin}/hang`;
      const navigated = await tabwire(["navigate", hang, ...on, "--timeout", "1s"], hub.url);
      expect(navigated.code).to.equal(4);
      expect(json(navigated.stderr)).to.include({ ok: false, code: "TIMEOUT" });
      expect(String(json(navigated.stderr).error)).to.include(`${hang} did not load within 1000 ms`);
      const loading = await tabwire(["eval", "1 + 1", ...on], hub.url);
      expect([loading.code, json(loading.stderr).code]).to.deep.equal([4, "PAGE_LOADING"]);
      expect(json((await tabwire(["stop", ...on], hub.url)).stdout)).to.deep.equal({ ok: true, ...other() });
      const opened = await tabwire(["tabs", "open", `${hang}?open=1`, "--timeout", "1s"], hub.url);
      expect([opened.code, json(opened.stderr).code]).to.deep.equal([4, "TIMEOUT"]);
      expect(String(json(opened.stderr).error)).to.include(`${hang}?open=1 did not load within 1000 ms; the new tab was closed again`);
    } finally {
      await closeTab(client, tab.target);
    }
  });

  it("the CLI's --help names the page commands and their --timeout", async () => {
    const usage = await tabwire(["--help"], "ws://127.0.0.1:1");
    for (const command of ["back", "forward", "reload", "stop"]) expect(usage.stdout).to.include(`tabwire ${command}`);
    for (const command of ["back", "forward", "reload", "stop", "navigate"]) {
      const help = await tabwire([command, "--help"], "ws://127.0.0.1:1");
      expect([help.code, help.stdout.includes("--timeout")], command).to.deep.equal([0, true]);
    }
    expect((await tabwire(["tabs", "--help"], "ws://127.0.0.1:1")).stdout).to.include("--timeout");
  });
});
