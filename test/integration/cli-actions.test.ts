import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { json, tabwire } from "../support/cli.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, sharedHub } from "../support/test-hub.js";

describe("tabwire click / type / press / fill / select / upload / wait (CLI, real hub)", function () {
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

  it("acts on a page through refs of an interactive snapshot, and waits for what the page shows", async () => {
    const { target } = await openTab(client, fixtures.url("actions.html"));
    const run = async (...args: string[]): Promise<Record<string, unknown>> =>
      json((await tabwire([...args, "--target", target], hub.url)).stdout);
    try {
      const snapshot = String((await run("snapshot", "--interactive")).text);
      const ref = (pattern: RegExp): string => pattern.exec(snapshot)?.[1] as string;
      // The click answers what it changed on the page: the text its handler wrote.
      const clicked = await run("click", ref(/button "Press me" \[ref=(e\d+)\]/));
      expect(clicked).to.have.keys("ok", "changes");
      expect((clicked.changes as { diff?: string }).diff).to.match(/^\+ StaticText "Pressed 1" \[ref=e\d+\]$/);
      expect(await run("wait", "--text", "Pressed 1", "--timeout", "5s")).to.include({ ok: true });
      // A snapshot read from the DOM hands out refs the actions take as well.
      const fromDom = String((await run("snapshot", "--interactive", "--dom")).text);
      await run("fill", /textbox "Name" \[ref=(e\d+)\]/.exec(fromDom)?.[1] as string, "Ada", "Lovelace");
      await run("type", "--selector", "#controlled", "hi");
      await run("press", "--selector", "#controlled", "Backspace");
      await run("select", "--selector", "#plan", "Pro");
      const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-cli-upload-"));
      await writeFile(path.join(dir, "note.txt"), "from the CLI");
      await run("upload", "--selector", "#file", path.join(dir, "note.txt"));
      const state = await evaluate<{ value: unknown[] }>(
        client,
        target,
        "new Promise((resolve) => { const check = () => (uploaded ? resolve([document.getElementById('name').value, controlledState, document.getElementById('plan').value, uploaded[0].name, uploaded[0].size]) : setTimeout(check, 10)); check(); })",
      );
      expect(state.value).to.deep.equal(["Ada Lovelace", "h", "pro", "note.txt", 12]);
      const failed = await tabwire(["click", "--selector", "#disabled", "--timeout", "300ms", "--target", target], hub.url);
      expect(failed.code).to.equal(4);
      expect(json(failed.stderr)).to.deep.include({ ok: false });
    } finally {
      await closeTab(client, target);
    }
  });
});
