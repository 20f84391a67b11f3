import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { collect } from "../support/collect.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "downloads-full-token";
const TOKEN_A = "downloads-token-alpha";
const TOKEN_B = "downloads-token-beta";
const SERVED = fileURLToPath(new URL("../../../test/fixtures/pages/data.json", import.meta.url));

interface Finished {
  downloadId: string;
  clientId: string;
  state: string;
  bytes: number;
  sha256?: string;
}

describe("downloads: a client's files, kept in its own folder for DOWNLOAD_TTL_MS (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: "downloads-agent-key",
      DOWNLOAD_TTL_MS: "3000",
    });
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  it("a link with download is saved, announced with the served file's SHA-256, fetched over HTTP with the token and JSON-RPC, hidden from beta, and gone after its TTL", async () => {
    await Promise.all([
      alpha.call("events.subscribe", { topics: ["downloads"] }),
      beta.call("events.subscribe", { topics: ["downloads"] }),
    ]);
    const seenByBeta: unknown[] = [];
    beta.onNotification((method, params) => {
      if (method.startsWith("download.")) seenByBeta.push(params);
    });
    const expected = createHash("sha256")
      .update(await readFile(SERVED))
      .digest("hex");
    const tab = await openTab(alpha, site.url("download.html"));
    try {
      const finished = collect<Finished>(alpha, "download.finished", { done: (all) => all.length > 0, timeoutMs: 15_000 });
      await alpha.call("click", { target: tab.target, selector: "#get" });
      const [done] = await finished;
      expect(done).to.include({ clientId: "alpha", state: "completed", sha256: expected });
      const { downloads } = (await alpha.call("downloads.list", {})) as {
        downloads: { downloadId: string; filename: string; state: string }[];
      };
      expect(downloads.map(({ downloadId, filename, state }) => ({ downloadId, filename, state }))).to.deep.equal([
        { downloadId: done!.downloadId, filename: "report.json", state: "completed" },
      ]);
      const url = `${hub.url.replace(/^ws/, "http")}/downloads/${done!.downloadId}`;
      const overHttp = await fetch(url, { headers: { authorization: `Bearer ${TOKEN_A}` } });
      expect(overHttp.status).to.equal(200);
      expect(
        createHash("sha256")
          .update(Buffer.from(await overHttp.arrayBuffer()))
          .digest("hex"),
      ).to.equal(expected);
      expect((await fetch(url)).status).to.equal(401);
      expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN_B}` } })).status).to.equal(404);
      const file = (await alpha.call("downloads.get", { downloadId: done!.downloadId })) as { data: string };
      expect(createHash("sha256").update(Buffer.from(file.data, "base64")).digest("hex")).to.equal(expected);
      expect((await rpcFailure(beta.call("downloads.get", { downloadId: done!.downloadId }))).code).to.equal(-32602);
      expect(await beta.call("downloads.list", {})).to.deep.equal({ downloads: [] });
      expect((await rpcFailure(beta.call("downloads.list", { clientId: "alpha" }))).code).to.equal(-32007);
      // DOWNLOAD_TTL_MS later the file and its entry go.
      await collect(alpha, "download.removed", { done: (all) => all.length > 0, timeoutMs: 15_000 });
      expect(await alpha.call("downloads.list", {})).to.deep.equal({ downloads: [] });
      expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN_A}` } })).status).to.equal(404);
      expect(seenByBeta).to.deep.equal([]);
    } finally {
      await closeTab(alpha, tab.target);
    }
  });

  it("a download past MAX_DOWNLOAD_BYTES is cancelled, and says why", async () => {
    const small = await startTestHub({ MAX_DOWNLOAD_BYTES: "10" });
    const client = await connect(small);
    try {
      await client.call("events.subscribe", { topics: ["downloads"] });
      const tab = await openTab(client, site.url("download.html"));
      const finished = collect<Finished & { reason?: string }>(client, "download.finished", {
        done: (all) => all.length > 0,
        timeoutMs: 15_000,
      });
      await client.call("click", { target: tab.target, selector: "#get" });
      const [done] = await finished;
      expect(done?.state).to.equal("canceled");
      expect(done?.reason).to.match(/MAX_DOWNLOAD_BYTES/);
      await closeTab(client, tab.target);
    } finally {
      await client.close();
      await small.stop();
    }
  });
});
