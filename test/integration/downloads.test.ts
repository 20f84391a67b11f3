import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { collect } from "../support/collect.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
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
  reason?: string;
}

const CAP_BYTES = 1_000_000;
const PART_BYTES = 600_000;

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
  describe("downloads running at once are held to MAX_DOWNLOAD_BYTES together, per client", () => {
    let capped: Hub;
    let dataDir: string;
    let one: TestRpcClient;
    let two: TestRpcClient;
    let all: TestRpcClient;

    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), "tabwire-downloads-"));
      capped = await startTestHub({
        HUB_TOKEN: FULL,
        HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
        AUTH_KEY: "downloads-agent-key",
        MAX_DOWNLOAD_BYTES: String(CAP_BYTES),
        DATA_DIR: dataDir,
      });
      [one, two, all] = await Promise.all([
        connect(capped, { token: TOKEN_A }),
        connect(capped, { token: TOKEN_B }),
        connect(capped, { token: FULL }),
      ]);
      await Promise.all([one, two, all].map((client) => client.call("events.subscribe", { topics: ["downloads"] })));
    });
    after(async () => {
      await Promise.all([one?.close(), two?.close(), all?.close()]);
      await capped?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    /** Starts one download of PART_BYTES in each of `count` new tabs of a client; answers how they finished. */
    async function downloadAtOnce(client: TestRpcClient, count: number, how: { query: string; clientId?: string }): Promise<Finished[]> {
      const { query, clientId } = how;
      const extra = clientId === undefined ? {} : { clientId };
      const tabs = await Promise.all(Array.from({ length: count }, () => openTab(client, site.url("index.html"), extra)));
      try {
        const finished = collect<Finished>(client, "download.finished", { done: (all) => all.length === count, timeoutMs: 30_000 });
        const urls = tabs.map((_, i) => site.url(`bytes?size=${PART_BYTES}&name=part-${i}.bin&${query}`));
        await Promise.all(tabs.map((tab, i) => evaluate(client, tab.target, `location.href = ${JSON.stringify(urls[i])}; 1`)));
        return await finished;
      } finally {
        await Promise.all(tabs.map((tab) => closeTab(client, tab.target)));
      }
    }

    /** What a client's downloads hold: completed bytes in its listing, and bytes in its folder once Chrome is done. */
    async function heldBy(client: TestRpcClient, clientId: string): Promise<{ states: string[]; listed: number }> {
      const { downloads } = (await client.call("downloads.list", { clientId })) as {
        downloads: { state: string; receivedBytes: number }[];
      };
      const completed = downloads.filter((download) => download.state === "completed");
      const folder = capped.services.downloads.folderOf(clientId);
      const onDisk = async (): Promise<number> => {
        const sizes = await Promise.all((await readdir(folder)).map(async (name) => (await stat(path.join(folder, name))).size));
        return sizes.reduce((sum, size) => sum + size, 0);
      };
      await eventually(async () => (await onDisk()) <= CAP_BYTES, 10_000, `${clientId}'s folder at most MAX_DOWNLOAD_BYTES`);
      return { states: downloads.map((download) => download.state).sort(), listed: completed.reduce((sum, d) => sum + d.receivedBytes, 0) };
    }

    it("three downloads of 600 KB whose size Chrome knows, started at once against 1 MB: one is kept, two are cancelled with the reason; another client's at the same time is its own", async () => {
      const group = "known-size";
      const [mine, theirs] = await Promise.all([
        downloadAtOnce(one, 3, { query: `group=${group}&of=4` }),
        downloadAtOnce(two, 1, { query: `group=${group}&of=4` }),
      ]);
      expect(mine.map((done) => done.state).sort()).to.deep.equal(["canceled", "canceled", "completed"]);
      for (const done of mine.filter((each) => each.state === "canceled")) expect(done.reason).to.match(/MAX_DOWNLOAD_BYTES/);
      expect(await heldBy(one, "alpha")).to.deep.equal({ states: ["canceled", "canceled", "completed"], listed: PART_BYTES });
      expect(theirs.map(({ state, bytes }) => ({ state, bytes }))).to.deep.equal([{ state: "completed", bytes: PART_BYTES }]);
    });

    it("three downloads of 600 KB of unknown size (chunked), 400 KB each received before any ends: one is kept, two are cancelled", async () => {
      const mine = await downloadAtOnce(all, 3, { query: "chunked=1&first=400000&group=chunked&of=3", clientId: "gamma" });
      expect(mine.map((done) => done.state).sort()).to.deep.equal(["canceled", "canceled", "completed"]);
      expect(await heldBy(all, "gamma")).to.deep.equal({ states: ["canceled", "canceled", "completed"], listed: PART_BYTES });
    });
  });
});
