import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { TestAgent } from "../fixtures/wire-agent.js";
import { startChildHub, startRefused } from "../support/child-hub.js";
import { collect } from "../support/collect.js";
import { request, upgradeStatus } from "../support/http-request.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab } from "../support/tabs.js";

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe("security: secrets in logs (hub in a child process, LOG_LEVEL=debug)", function () {
  this.timeout(60_000);

  it("no token, agent key, secretKey or API key, right or wrong, reaches a log file or the console output", async () => {
    const secret = (name: string): string => `${name}-${randomBytes(12).toString("hex")}`;
    const s = {
      full: secret("full"),
      scoped: secret("scoped"),
      authKey: secret("authkey"),
      wrongHeader: secret("wrongheader"),
      wrongQuery: secret("wrongquery"),
      wrongHttpHeader: secret("wronghttph"),
      wrongHttpQuery: secret("wronghttpq"),
      wrongSecretKey: secret("wrongsecret"),
      wrongAgentUrl: secret("wrongagenturl"),
      modelKey: secret("sk-model"),
      metadataKey: secret("sk-meta"),
      configureKey: secret("sk-configure"),
    };
    const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-secrets-"));
    const hub = await startChildHub(
      {
        HUB_TOKEN: s.full,
        HUB_TOKENS: `${s.scoped}:alpha`,
        AUTH_KEY: s.authKey,
        AGENT_LEGACY_AUTH: "true",
        LOG_LEVEL: "debug",
      },
      { dir },
    );
    try {
      const byHeader = await TestRpcClient.connect(hub.url, { token: s.full });
      const byQuery = await TestRpcClient.connect(hub.url, { path: `/rpc?token=${s.full}` });
      const scoped = await TestRpcClient.connect(hub.url, { token: s.scoped });
      await byQuery.call("ping");
      await scoped.call("tabs.list");
      expect(await upgradeStatus(`${hub.url}/rpc`, { authorization: `Bearer ${s.wrongHeader}` })).to.equal(401);
      expect(await upgradeStatus(`${hub.url}/rpc?token=${s.wrongQuery}`)).to.equal(401);
      expect(await upgradeStatus(`${hub.url}/agent?token=${s.wrongAgentUrl}`)).to.equal(401);
      expect((await request(hub.port, "GET /status", { token: s.full })).status).to.equal(200);
      expect((await request(hub.port, "GET /clients", { query: s.scoped })).status).to.equal(200);
      expect((await request(hub.port, "GET /status", { token: s.wrongHttpHeader })).status).to.equal(401);
      expect((await request(hub.port, "GET /clients", { query: s.wrongHttpQuery })).status).to.equal(401);

      const tab = await openTab(byHeader, "about:blank", { clientId: "alpha" });
      const agents = [
        await TestAgent.connect({ url: `${hub.url}/agent?token=${s.authKey}`, clientId: tab.target }),
        await TestAgent.connect({ url: `${hub.url}/agent`, clientId: "by-header:t1", headers: { authorization: `Bearer ${s.authKey}` } }),
        await TestAgent.connect({ url: `${hub.url}/`, clientId: "by-secret:t1", secretKey: s.authKey }),
        await TestAgent.connect({ url: `${hub.url}/agent`, clientId: "legacy:t1", legacySecret: s.authKey }),
      ];
      for (const agent of agents) expect(await agent.registration()).to.include({ status: "accepted" });
      const wrong = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: "wrong:t1", secretKey: s.wrongSecretKey });
      expect(await wrong.registration()).to.include({ status: "rejected" });

      const [worker] = agents;
      worker?.onRequest("evaluate", () => ({ status: "success", output: "done" }));
      worker?.onRequest("configure_llm", () => ({ configured: true }));
      await byHeader.call("events.subscribe", { topics: ["agents"] });
      const announced = collect<{ target: string }>(byHeader, "agent.ready", (all) => all.some((a) => a.target === tab.target));
      worker?.ready();
      await announced;
      const model = { provider: "openai", model: "gpt-x", api_key: s.modelKey };
      await byHeader.call("agent.run", { target: tab.target, input: "hi", model, metadata: { apiKey: s.metadataKey } });
      await scoped.call("agent.call", {
        target: tab.target,
        method: "configure_llm",
        params: { provider: "openai", apiKey: s.configureKey },
      });

      for (const agent of agents) await agent.close();
      await closeTab(byHeader, tab.target);
      await Promise.all([byHeader.close(), byQuery.close(), scoped.close()]);
    } finally {
      await hub.stop();
    }
    try {
      const files = await filesUnder(hub.logDir);
      const logs = await Promise.all(files.map(async (file) => [path.relative(dir, file), await readFile(file, "utf8")] as const));
      expect(logs.map(([name]) => name)).to.include(path.join("logs", "api.log"));
      expect(logs.find(([name]) => name.endsWith("api.log"))?.[1]).to.include("agent.run");
      const places: (readonly [string, string])[] = [...logs, ["the console output", hub.output()]];
      const leaks = places.flatMap(([place, text]) =>
        Object.entries(s)
          .filter(([, value]) => text.includes(value))
          .map(([name]) => `${name} in ${place}`),
      );
      expect(leaks).to.deep.equal([]);
      // Only the operator reads them.
      expect((await stat(hub.logDir)).mode & 0o777, "the log folder").to.equal(0o700);
      for (const file of files) expect((await stat(file)).mode & 0o777, file).to.equal(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the credentials in CDP_URL and REDIS_URL reach neither a log file nor the console", async () => {
    const password = `pw-${randomBytes(12).toString("hex")}`;
    const token = `tk-${randomBytes(12).toString("hex")}`;
    const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-secrets-"));
    try {
      // Nothing listens there: the hub cannot start, and says why without the password or the token.
      const refused = await startRefused(
        { CDP_URL: `http://tabwire:${password}@127.0.0.1:1/?token=${token}`, LOG_LEVEL: "debug", LOG_DIR: path.join(dir, "cdp") },
        dir,
      );
      expect(refused.code).to.not.equal(0);
      expect(refused.output).to.include("cannot start");
      // Redis is away: the hub starts alone and logs why it cannot reach it.
      const hub = await startChildHub(
        {
          REDIS_URL: `redis://tabwire:${password}@127.0.0.1:1`,
          CLUSTER_SECRET: `cs-${token}`,
          LOG_LEVEL: "debug",
          LOG_DIR: path.join(dir, "redis"),
        },
        { dir },
      );
      await hub.stop();
      expect(hub.output()).to.include("Redis");
      const files = await filesUnder(dir);
      const texts = [refused.output, hub.output(), ...(await Promise.all(files.map((file) => readFile(file, "utf8"))))];
      for (const text of texts) for (const secret of [password, token]) expect(text).to.not.include(secret);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
