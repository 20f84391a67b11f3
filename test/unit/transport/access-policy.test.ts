import type { IncomingMessage } from "node:http";
import { expect } from "chai";
import { AccessPolicy, type AccessPolicyOptions } from "../../../src/transport/access-policy.js";
import { Authenticator } from "../../../src/transport/auth.js";

/** A request as the policy reads it: the peer's address and the headers. */
function requestFrom(remoteAddress: string, headers: Record<string, string> = {}): IncomingMessage {
  return { socket: { remoteAddress }, headers } as unknown as IncomingMessage;
}

const URL_OF = new URL("http://hub.invalid/rpc");

function policy(options: Partial<AccessPolicyOptions> = {}): AccessPolicy {
  return new AccessPolicy({
    tokens: new Authenticator([]),
    agentKeys: new Authenticator([]),
    allowedOrigins: new Set(),
    allowedHosts: new Set(),
    host: "127.0.0.1",
    allowOpen: false,
    ...options,
  });
}

describe("AccessPolicy", () => {
  it("a hub with no token refuses a peer of another machine at both doors, naming the setting", () => {
    const refusal = policy().decide(requestFrom("10.0.0.5"), URL_OF, "orchestrator");
    expect(refusal).to.deep.equal({
      status: 403,
      message: "the hub has no HUB_TOKEN configured and accepts loopback peers only; set HUB_TOKEN to allow others",
    });
    expect(policy().decide(requestFrom("10.0.0.5"), URL_OF, "agent")).to.have.property("status", 403);
  });

  it("ALLOW_OPEN admits every peer address and Host at both doors, and says it is wide open", () => {
    const open = policy({ allowOpen: true });
    for (const door of ["orchestrator", "agent"] as const) {
      expect(open.decide(requestFrom("10.0.0.5", { host: "anything.example" }), URL_OF, door)).to.deep.equal({
        grant: { scope: null, capabilities: null },
        authenticated: true,
      });
      expect(open.isWideOpen(door)).to.equal(true);
    }
    expect(policy().isWideOpen("orchestrator")).to.equal(false);
  });

  it("ALLOW_OPEN does not open a door that has tokens", () => {
    const keyed = policy({
      allowOpen: true,
      tokens: new Authenticator([{ token: "a-token-of-16-chars", scope: null, capabilities: null }]),
    });
    expect(keyed.decide(requestFrom("10.0.0.5"), URL_OF, "orchestrator")).to.have.property("status", 401);
    expect(keyed.isWideOpen("orchestrator")).to.equal(false);
  });

  it("a token-less hub answers loopback names, HOST and ALLOWED_HOSTS only", () => {
    const guarded = policy({ host: "127.0.0.2", allowedHosts: new Set(["hub.test"]) });
    const hostOk = (host: string): boolean => !("status" in guarded.decide(requestFrom("127.0.0.1", { host }), URL_OF, "orchestrator"));
    for (const host of [
      "localhost",
      "LOCALHOST:8080",
      "a.localhost",
      "127.0.0.1:8080",
      "127.9.9.9",
      "[::1]:8080",
      "127.0.0.2:1",
      "hub.test",
      "hub.test:8080",
    ])
      expect(hostOk(host), host).to.equal(true);
    for (const host of ["evil.example", "localhost.evil.example", "127.0.0.1.evil.example", "hub.test.evil.example", "[::2]", "::1::"])
      expect(hostOk(host), host).to.equal(false);
  });

  it("the devtools:// Origin reaches the agent door only", () => {
    const request = requestFrom("127.0.0.1", { origin: "devtools://devtools" });
    expect(policy().decide(request, URL_OF, "agent")).to.not.have.property("status");
    expect(policy().decide(request, URL_OF, "orchestrator")).to.have.property("status", 403);
  });
});
