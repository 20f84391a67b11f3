import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { requestFrom } from "../support/http-request.js";
import { startTestHub } from "../support/test-hub.js";

const TOKEN_A = "sessions-token-alpha";
const TOKEN_B = "sessions-token-beta";
// More sign-ins than any cap the store has had (1,000 sessions in all), from many addresses, a few at a time.
const SIGN_INS = 1_001;
const SOURCES = 100;
const AT_ONCE = 20;

describe("dashboard sessions are capped per token: one token's sign-ins never sign out another (real hub)", function () {
  this.timeout(120_000);
  let hub: Hub;
  before(async () => {
    hub = await startTestHub({ HUB_TOKENS: `${TOKEN_A},${TOKEN_B}:beta`, AUTH_KEY: "sessions-agent-key" });
  });
  after(async () => {
    await hub?.stop();
  });

  /** Signs in from `source`, waiting as long as the hub says when it is busy; the session cookie. */
  async function signIn(token: string, source: string): Promise<string> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const reply = await requestFrom(hub.port, source, {
        methodAndPath: "POST /ui/session",
        body: { token },
        headers: { origin: `http://127.0.0.1:${hub.port}` },
      });
      const cookie = /^(tabwire_session=[^;]+)/.exec(String(reply.headers["set-cookie"] ?? ""))?.[1];
      if (reply.status === 200 && cookie) return cookie;
      expect(reply.status, JSON.stringify(reply.body)).to.be.oneOf([429, 503]);
      await new Promise((resolve) => setTimeout(resolve, reply.body.error?.data?.retryAfterMs ?? 1_000));
    }
    throw new Error(`no sign-in from ${source} after 20 attempts`);
  }

  const sessionStatus = async (cookie: string): Promise<number> =>
    (await requestFrom(hub.port, "127.0.0.1", { methodAndPath: "GET /ui/session", headers: { cookie } })).status;

  it("token A signs in 1,001 times: token B's earlier session still works, and A keeps only its newest", async () => {
    const beta = await signIn(TOKEN_B, "127.0.2.1");
    const alpha: string[] = new Array<string>(SIGN_INS);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < SIGN_INS; i = next++) alpha[i] = await signIn(TOKEN_A, `127.0.1.${(i % SOURCES) + 1}`);
    };
    await Promise.all(Array.from({ length: AT_ONCE }, worker));
    expect(await sessionStatus(beta), "token B's session").to.equal(200);
    expect(await sessionStatus(alpha[SIGN_INS - 1] as string), "A's newest session").to.equal(200);
    expect(await sessionStatus(alpha[0] as string), "A's first session, ended by A's own later sign-ins").to.equal(401);
  });
});
