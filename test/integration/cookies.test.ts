import { expect } from "chai";
import type { Cookie } from "../../src/protocol/types.js";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "cookies-full-token";
const TOKEN_A = "cookies-token-alpha";
const TOKEN_B = "cookies-token-beta";
const KEY_B = "cookies-agent-key-beta";

type Cookies = { cookies: Cookie[] };

describe("cookies.get: a client's cookies, from its own browser context (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let site: FixtureServer;
  let full: TestRpcClient;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL,
      HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`,
      AUTH_KEY: "cookies-agent-key",
      AGENT_KEYS: `${KEY_B}:beta`,
    });
    [full, alpha, beta] = await Promise.all([
      connect(hub, { token: FULL }),
      connect(hub, { token: TOKEN_A }),
      connect(hub, { token: TOKEN_B }),
    ]);
    const tab = await openTab(alpha, site.url("set-cookie?name=session&value=alpha-secret"));
    await evaluate(alpha, tab.target, "document.cookie = 'theme=dark; path=/'");
    await closeTab(alpha, tab.target);
  });
  after(async () => {
    await Promise.all([full?.close(), alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  const names = (reply: Cookies): string[] => reply.cookies.map((cookie) => cookie.name).sort();

  it("lists the client's cookies, the HttpOnly one a script cannot read included", async () => {
    const { cookies } = await alpha.call<Cookies>("cookies.get", {});
    const session = cookies.find((cookie) => cookie.name === "session");
    expect(session).to.include({ value: "alpha-secret", httpOnly: true, domain: "127.0.0.1", path: "/", session: true });
    expect(names({ cookies })).to.deep.equal(["session", "theme"]);
  });

  it("keeps, with urls, only the cookies a request to one of them would carry", async () => {
    expect(names(await alpha.call<Cookies>("cookies.get", { urls: [`${site.origin}/any/page`] }))).to.deep.equal(["session", "theme"]);
    expect(names(await alpha.call<Cookies>("cookies.get", { urls: ["http://other.invalid/"] }))).to.deep.equal([]);
    const bad = await rpcFailure(alpha.call("cookies.get", { urls: ["not a url"] }));
    expect(bad.code).to.equal(-32602);
    expect((bad.data as { errors: { path: string }[] }).errors[0]?.path).to.equal("/urls/0");
  });

  it("gives another client none of them: its own context has none", async () => {
    expect((await beta.call<Cookies>("cookies.get", {})).cookies).to.deep.equal([]);
    expect((await full.call<Cookies>("cookies.get", { clientId: "beta" })).cookies).to.deep.equal([]);
    expect(names(await full.call<Cookies>("cookies.get", { clientId: "alpha" }))).to.deep.equal(["session", "theme"]);
  });

  it("reads a client without a browser context as empty, and makes it none", async () => {
    expect((await full.call<Cookies>("cookies.get", { clientId: "gamma" })).cookies).to.deep.equal([]);
    expect(hub.services.clients.contexts.existing("gamma")).to.equal(null);
  });

  it("refuses a scoped token another client's cookies with FORBIDDEN, and the default client's too", async () => {
    for (const clientId of ["alpha", "local"]) {
      const refused = await rpcFailure(beta.call("cookies.get", { clientId }));
      expect(refused.code, clientId).to.equal(-32007);
      expect(refused.message).to.not.include("alpha-secret");
    }
  });

  it("refuses an agent whose key reaches another client, and a caller with no token never gets in", async () => {
    const agent = await TestAgent.connect({ url: `${hub.url}/agent?token=${KEY_B}`, clientId: "beta:worker" });
    try {
      expect(await agent.registration()).to.include({ status: "accepted" });
      const refused = (await agent.call("cookies.get", { clientId: "alpha" }).catch((error: unknown) => error)) as { code?: number };
      expect(refused.code).to.equal(-32007);
      expect(await agent.call("cookies.get", {})).to.deep.equal({ cookies: [] });
    } finally {
      await agent.close();
    }
    const stranger = await connect(hub).catch((error: { status?: number }) => error.status);
    expect(stranger).to.equal(401);
  });
});
