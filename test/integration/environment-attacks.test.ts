import { expect } from "chai";
import WebSocket from "ws";
import { ErrorCode } from "../../src/errors.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { collect } from "../support/collect.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const TOKEN_A = "env-token-alpha";
const TOKEN_B = "env-token-beta";
const KEY_B = "env-agent-key-beta";

describe("network, cookies, state, downloads, emulation, pdf and history moves are per client: another client's token, an agent with another key, a stranger (real hub)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;
  let tab: OpenedTab;
  let routeId: string;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: "env-full-token",
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: "env-agent-key",
      AGENT_KEYS: `${KEY_B}:beta`,
    });
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
    tab = await openTab(alpha, site.url("set-cookie?name=session&value=alpha-secret"));
    await alpha.call("navigate", { target: tab.target, url: site.url("index.html") });
    ({ routeId } = (await alpha.call("network.route", { target: tab.target, url: "**/never-requested", action: "block" })) as {
      routeId: string;
    });
  });
  after(async () => {
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  const onTab: [string, object][] = [
    ["network.list", {}],
    ["network.get", { requestId: "1" }],
    ["network.har", { bodies: true }],
    ["network.route", { url: "**", action: "block" }],
    ["network.conditions", { offline: true }],
    ["emulate", { timezone: "Asia/Tokyo", userAgent: "pwned" }],
    ["pdf", {}],
  ];
  const onClient: [string, object][] = [
    ["cookies.get", { clientId: "alpha" }],
    ["cookies.set", { clientId: "alpha", cookies: [{ name: "pwned", value: "1", url: "http://127.0.0.1/" }] }],
    ["cookies.clear", { clientId: "alpha" }],
    ["state.export", { clientId: "alpha" }],
    ["state.import", { clientId: "alpha", state: { cookies: [], origins: [] } }],
    ["downloads.list", { clientId: "alpha" }],
    ["network.route", { clientId: "alpha", url: "**", action: "block" }],
  ];

  it("a scoped token of another client and an agent whose key reaches another client get nothing, and alpha's tab is untouched", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY_B}`, clientId: "beta:worker" });
    const codeOf = async (pending: Promise<unknown>): Promise<number | undefined> =>
      (
        (await pending.then(
          () => ({ code: undefined }),
          (error: unknown) => error,
        )) as { code?: number }
      ).code;
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      for (const [method, params] of onTab) {
        expect(await codeOf(beta.call(method, { target: tab.target, ...params })), `token ${method}`).to.equal(ErrorCode.TARGET_NOT_FOUND);
        expect(await codeOf(agent.call(method, { target: tab.target, ...params })), `agent ${method}`).to.equal(ErrorCode.TARGET_NOT_FOUND);
      }
      for (const [method, params] of onClient) {
        expect(await codeOf(beta.call(method, params)), `token ${method}`).to.equal(ErrorCode.FORBIDDEN);
        expect(await codeOf(agent.call(method, params)), `agent ${method}`).to.equal(ErrorCode.FORBIDDEN);
      }
      // Alpha's ids are as unknown to them as ids that never were.
      for (const client of [beta, agent]) {
        expect(await codeOf(client.call("network.unroute", { routeId })), "network.unroute").to.equal(ErrorCode.INVALID_PARAMS);
        expect(await codeOf(client.call("downloads.get", { downloadId: routeId })), "downloads.get").to.equal(ErrorCode.INVALID_PARAMS);
      }
    } finally {
      await agent.close();
    }
    const seen = await evaluate(alpha, tab.target, {
      expression: `Promise.all([Intl.DateTimeFormat().resolvedOptions().timeZone !== "Asia/Tokyo", navigator.userAgent !== "pwned", fetch(${JSON.stringify(site.url("cookies"))}).then((r) => r.text())])`,
      awaitPromise: true,
    });
    expect(seen).to.deep.include({ value: [true, true, "session=alpha-secret"] });
    expect(await alpha.call("network.unroute", { routeId })).to.deep.equal({ removed: true });
  });

  it("network.subscribe: a scoped token of another client and an agent whose key reaches another client can neither subscribe to alpha's tab nor end alpha's subscription, and hear none of its requests", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY_B}`, clientId: "beta:watcher" });
    const heardByBeta: Record<string, unknown>[] = [];
    beta.onNotification((method, params) => {
      if (method === "network.requests") heardByBeta.push(params);
    });
    const { subscriptionId } = (await alpha.call("network.subscribe", { target: tab.target })) as { subscriptionId: string };
    const betaTab = await openTab(beta, site.url("index.html"));
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      for (const [who, client] of [["token", beta] as const, ["agent", agent] as const]) {
        const refused = await client.call("network.subscribe", { target: tab.target }).then(
          () => ({ code: undefined, message: "" }),
          (error: { code?: number; message: string }) => error,
        );
        expect(refused.code, `${who} network.subscribe`).to.equal(ErrorCode.TARGET_NOT_FOUND);
        expect(refused.message, who).to.equal(`no tab ${tab.target}; list tabs with tabs.list`);
        const ended = await client.call("network.unsubscribe", { subscriptionId }).then(
          () => undefined,
          (error: { code?: number }) => error.code,
        );
        expect(ended, `${who} network.unsubscribe`).to.equal(ErrorCode.INVALID_PARAMS);
      }
      // Beta's own subscription is the control: its requests reach it, and none of alpha's came before them.
      await beta.call("network.subscribe", { target: betaTab.target });
      const alphaUrl = site.url("data.json?alpha-only=1");
      const betaUrl = site.url("data.json?beta-control=1");
      const finished = (url: string) => (all: { requests: { url: string; state: string }[] }[]) =>
        all.some((notice) => notice.requests.some((request) => request.url === url && request.state === "finished"));
      const alphaHeard = collect<{ subscriptionId: string; requests: { url: string; state: string }[] }>(
        alpha,
        "network.requests",
        finished(alphaUrl),
      );
      await evaluate(alpha, tab.target, { expression: `fetch(${JSON.stringify(alphaUrl)}).then((r) => r.text())`, awaitPromise: true });
      // Alpha's subscription outlived the attempts to end it.
      expect((await alphaHeard).some((notice) => notice.subscriptionId === subscriptionId)).to.equal(true);
      const betaHeard = collect<{ requests: { url: string; state: string }[] }>(beta, "network.requests", finished(betaUrl));
      await evaluate(beta, betaTab.target, { expression: `fetch(${JSON.stringify(betaUrl)}).then((r) => r.text())`, awaitPromise: true });
      await betaHeard;
      expect(
        heardByBeta.filter((notice) => notice.target !== betaTab.target || JSON.stringify(notice).includes("alpha-only")),
      ).to.deep.equal([]);
      expect(agent.frames.filter((frame) => frame.method === "network.requests")).to.deep.equal([]);
    } finally {
      await agent.close();
      await closeTab(beta, betaTab.target);
      await alpha.call("network.unsubscribe", { subscriptionId }).catch(() => undefined);
    }
  });

  it("tabs.back, tabs.forward, tabs.reload and tabs.stop: a scoped token of another client and an agent whose key reaches another client get TARGET_NOT_FOUND, and alpha's tab stays on its page", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY_B}`, clientId: "beta:mover" });
    const shown = async (): Promise<unknown> =>
      (await evaluate(alpha, tab.target, "location.href + ' ' + history.length + ' ' + (window.__kept ?? 'reloaded')")).value;
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      await evaluate(alpha, tab.target, "window.__kept = 'kept'");
      const before = await shown();
      expect(before).to.equal(`${site.url("index.html")} 3 kept`);
      for (const method of ["tabs.back", "tabs.reload", "tabs.forward", "tabs.stop"]) {
        for (const [who, client] of [["token", beta] as const, ["agent", agent] as const]) {
          const refused = await client.call(method, { target: tab.target }).then(
            () => ({ code: undefined, message: "" }),
            (error: { code?: number; message: string }) => error,
          );
          expect(refused.code, `${who} ${method}`).to.equal(ErrorCode.TARGET_NOT_FOUND);
          expect(refused.message, `${who} ${method}`).to.equal(`no tab ${tab.target}; list tabs with tabs.list`);
        }
      }
      // Neither moved nor reloaded it: the page's own state is still there.
      expect(await shown()).to.equal(before);
    } finally {
      await agent.close();
    }
  });

  it("a stranger gets 401 before any call, on /rpc, /cdp, /mcp and /downloads; an agent's key is no token there", async () => {
    expect(await connect(hub).catch((error: { status?: number }) => error.status)).to.equal(401);
    const upgrade = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve) => {
        const ws = new WebSocket(`${hub.url}/cdp`, { headers });
        ws.once("open", () => {
          ws.close();
          resolve(101);
        });
        ws.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
        ws.once("error", () => undefined);
      });
    expect(await upgrade({})).to.equal(401);
    expect(await upgrade({ Authorization: `Bearer ${KEY_B}` })).to.equal(401);
    const http = hub.url.replace(/^ws/, "http");
    const mcp = (headers: Record<string, string>): Promise<number> =>
      fetch(`${http}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
          params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
        }),
      }).then((response) => response.status);
    expect(await mcp({})).to.equal(401);
    expect(await mcp({ authorization: `Bearer ${KEY_B}` })).to.equal(401);
    expect((await fetch(`${http}/downloads/anything`)).status).to.equal(401);
    expect((await fetch(`${http}/downloads/anything`, { headers: { authorization: `Bearer ${KEY_B}` } })).status).to.equal(401);
  });
});
