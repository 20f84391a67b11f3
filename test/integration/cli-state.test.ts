import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { json, tabwire } from "../support/cli.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, sharedHub } from "../support/test-hub.js";

describe("tabwire cookies / state / pdf (CLI, real hub)", function () {
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

  it("sets, lists and clears a client's cookies, carries them to another client with state export and import, and prints a PDF", async () => {
    const run = async (...args: string[]): Promise<Record<string, unknown>> => json((await tabwire(args, hub.url)).stdout);
    const site = fixtures.url("");
    expect(await run("cookies", "set", "login=cli-user", "--url", site, "--http-only", "--client", "cli-a")).to.deep.equal({
      ok: true,
      set: 1,
    });
    const listed = (await run("cookies", "--client", "cli-a")) as { cookies: { name: string; httpOnly: boolean }[] };
    expect(listed.cookies.find((cookie) => cookie.name === "login")).to.include({ httpOnly: true });
    const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-cli-state-"));
    const exported = await tabwire(["state", "export", "--client", "cli-a"], hub.url);
    const file = path.join(dir, "state.json");
    await writeFile(file, exported.stdout);
    expect(await run("state", "import", file, "--client", "cli-b")).to.deep.include({ ok: true, cookies: 1 });
    const tab = await openTab(client, fixtures.url("cookies"), { clientId: "cli-b" });
    try {
      expect((await evaluate<{ value: string }>(client, tab.target, "document.body.innerText")).value).to.include("login=cli-user");
      const listed = (await run("network", "list", "--url", "**/cookies", "--target", tab.target)) as {
        requests: { requestId: string; status: number }[];
      };
      expect(listed.requests.map((request) => request.status)).to.deep.equal([200]);
      const one = (await run("network", "get", listed.requests[0]!.requestId, "--body", "--target", tab.target)) as {
        body: { data: string };
      };
      expect(one.body.data).to.include("login=cli-user");
      const printed = (await run("pdf", "-o", path.join(dir, "page.pdf"), "--format", "A4", "--target", tab.target)) as {
        path: string;
        bytes: number;
      };
      const bytes = await readFile(printed.path);
      expect(bytes.subarray(0, 5).toString("latin1")).to.equal("%PDF-");
      expect(printed.bytes).to.equal(bytes.length);
    } finally {
      await closeTab(client, tab.target);
    }
    expect(await run("cookies", "clear", "--client", "cli-a")).to.deep.equal({ ok: true, cleared: 1 });
    expect(await run("cookies", "--client", "cli-a")).to.deep.equal({ ok: true, cookies: [] });
  });
});
