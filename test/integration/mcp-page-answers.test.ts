import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hub } from "../../src/hub.js";
import { call, result } from "../support/mcp-tools.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { startTestHub } from "../support/test-hub.js";

const FULL_TOKEN = "mcp-page-token";
const BETA_TOKEN = "mcp-page-beta-token";

async function mcpClient(hub: Hub, token: string): Promise<Client> {
  const client = new Client({ name: "tabwire-test", version: "1.0.0" });
  const url = new URL(`${hub.url.replace(/^ws/, "http")}/mcp`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

describe("MCP answers that carry the page: what a tool loaded, what an action changed (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({ HUB_TOKEN: FULL_TOKEN, HUB_TOKENS: `${BETA_TOKEN}:beta`, AUTH_KEY: "mcp-page-agent-key" });
  });
  after(async () => {
    await hub?.stop();
    await site?.close();
  });

  it("a tool that loads a page answers its snapshot, and so does a click that leaves the page; its refs act and its id diffs", async () => {
    const client = await mcpClient(hub, FULL_TOKEN);
    try {
      const opened = await call(client, "tabs_open", { url: site.url("actions.html") });
      const { target, snapshot } = opened.structuredContent as { target: string; snapshot: { snapshotId: string; title: string } };
      const [head = "", ...page] = (opened.content[0]?.text ?? "").split("\n");
      expect(JSON.parse(head)).to.include({ target, url: site.url("actions.html") });
      expect(page[0]).to.match(/^- RootWebArea "Actions Fixture" \[ref=e\d+\]$/);
      expect(snapshot.title).to.equal("Actions Fixture");
      // Its snapshot is one of the tab's: a diff against it is the one line that changed.
      await result(client, "evaluate", { target, expression: "document.querySelector('h1').textContent = 'Renamed'" });
      const diff = await call(client, "snapshot", { target, diff: snapshot.snapshotId });
      expect(diff.content[0]?.text).to.match(/^~ heading "Renamed" \[ref=e\d+\]$/);
      const next = /link "Next page" \[ref=(e\d+)\]/.exec(page.join("\n"))?.[1];
      const clicked = await call(client, "click", { target, ref: next });
      const [clickHead = "", ...after] = (clicked.content[0]?.text ?? "").split("\n");
      // The new page's URL is in the answer, its title in the snapshot's first line: no changes repeating them.
      expect(JSON.parse(clickHead)).to.deep.equal({ ok: true, navigated: { url: site.url("other.html") } });
      expect(after).to.deep.equal(['- RootWebArea "Other Page" [ref=' + /\[ref=(e\d+)\]/.exec(after[0] ?? "")?.[1] + "]", '  - "other"']);
      expect(clicked.structuredContent).to.deep.include({ changes: { url: site.url("other.html"), title: "Other Page" } });
      // Another client's session acting on the tab is refused, and is given no page.
      const stranger = await mcpClient(hub, BETA_TOKEN);
      const refused = await call(stranger, "tabs_reload", { target }).finally(() => stranger.close());
      expect(refused.isError).to.equal(true);
      expect(refused.content[0]?.text).to.not.match(/RootWebArea|other/);
      const back = await call(client, "tabs_back", { target });
      expect(back.content[0]?.text?.split("\n")[1]).to.match(/^- RootWebArea "Actions Fixture"/);
      // A click that stays on its page answers what it changed, not the page.
      const press = /button "Press me" \[ref=(e\d+)\]/.exec(back.content[0]?.text ?? "")?.[1];
      const pressed = await call(client, "click", { target, ref: press });
      expect(pressed.content[0]?.text).to.not.match(/RootWebArea/);
      expect(pressed.structuredContent).to.not.have.property("snapshot");
    } finally {
      await client.close();
    }
  });
});
