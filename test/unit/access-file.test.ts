import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { ConfigError, parseConfig, tokenPolicyOf } from "../../src/config.js";

const KEYS = { AUTH_KEY: "agent-key-of-16-chars" };
const SHOP_POLICY = {
  egress: { allow: ["shop.example", "*.shop.example"], block: [], ports: [443], schemes: ["https"], blockPrivateNetworks: true },
  upstreamProxy: "http://user:secret-pass@proxy.example:3128",
};

describe("config: ACCESS_FILE", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), "tabwire-access-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes an access file (mode 0600 unless told) and parses a configuration that names it. */
  function configWith(content: unknown, options: { mode?: number; env?: Record<string, string> } = {}): ReturnType<typeof parseConfig> {
    const file = path.join(dir, "access.json");
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
    chmodSync(file, options.mode ?? 0o600);
    return parseConfig({ ...KEYS, ...options.env, ACCESS_FILE: file });
  }

  function refusal(content: unknown, options: { mode?: number; env?: Record<string, string> } = {}): string {
    try {
      configWith(content, options);
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error("the configuration was accepted");
  }

  it("gives each token its clients, capabilities and policy beside HUB_TOKEN's full token", () => {
    const config = configWith(
      {
        tokens: [
          { token: "shop-reader-token", clients: ["shop-1"], capabilities: ["read"], policy: "shop-only" },
          { token: "everything-token", capabilities: ["read", "act"] },
        ],
        policies: { "shop-only": SHOP_POLICY },
      },
      { env: { HUB_TOKEN: "full-hub-token-123" } },
    );
    const [full, reader, wide] = config.tokens;
    expect(full).to.deep.equal({ token: "full-hub-token-123", scope: null, capabilities: null });
    expect(reader?.scope).to.deep.equal(new Set(["shop-1"]));
    expect(reader?.capabilities).to.deep.equal(new Set(["read"]));
    expect(reader?.policy).to.deep.equal(SHOP_POLICY);
    expect(wide?.scope).to.equal(null);
    expect(wide?.capabilities).to.deep.equal(new Set(["read", "act"]));
    expect(tokenPolicyOf(config, "shop-1")).to.deep.equal([SHOP_POLICY]);
    expect(tokenPolicyOf(config, "shop-2")).to.deep.equal([]);
  });

  it("leaving capabilities out gives every capability; a client listed by two tokens with policies gets both", () => {
    const config = configWith({
      tokens: [
        { token: "token-number-one", clients: ["a", "b"], policy: "one" },
        { token: "token-number-two", clients: ["b"], policy: "two" },
      ],
      policies: { one: { egress: { allow: ["one.test"] } }, two: { egress: { block: ["*.two.test"] } } },
    });
    expect(config.tokens[0]?.capabilities).to.equal(null);
    expect(tokenPolicyOf(config, "a")).to.deep.equal([{ egress: { allow: ["one.test"] } }]);
    expect(tokenPolicyOf(config, "b")).to.have.length(2);
  });

  it("reads a policy's hosts as clients.configure does: IP addresses (v6 too), names normalised as Chrome sends them", () => {
    const config = configWith({
      tokens: [{ token: "token-number-one", clients: ["a"], policy: "hosts" }],
      policies: { hosts: { egress: { allow: ["Shop.Example.", "*.Bücher.example", "10.1.2.3", "[::1]", "fd00::7"] } } },
    });
    const allow = ["shop.example", "*.xn--bcher-kva.example", "10.1.2.3", "::1", "fd00::7"];
    expect(tokenPolicyOf(config, "a")).to.deep.equal([{ egress: { allow } }]);
    const wildcardAddress = refusal({
      tokens: [{ token: "token-number-one", clients: ["a"], policy: "p" }],
      policies: { p: { egress: { block: ["*.10.0.0.1"] } } },
    });
    expect(wildcardAddress).to.contain('policies["p"].egress.block[0]: "*.10.0.0.1" is not a host name, an IP address or *.name');
  });

  it("refuses a file that is not JSON, naming the file", () => {
    expect(refusal('{"tokens": [')).to.match(/^ACCESS_FILE: .*access\.json is not valid JSON/);
  });

  it("refuses an unknown capability, naming where it is and the capabilities there are", () => {
    const tokens = [{ token: "token-number-one" }, { token: "token-number-two" }, { token: "token-number-three", capabilities: ["write"] }];
    expect(refusal({ tokens })).to.contain('tokens[2].capabilities[0]: "write" is not a capability (read, act, script, agents, admin)');
  });

  it("refuses a policy name that is not in policies", () => {
    const message = refusal({ tokens: [{ token: "token-number-one", clients: ["a"], policy: "nope" }], policies: { shop: {} } });
    expect(message).to.contain('tokens[0].policy: "nope" is not a policy of "policies" (shop)');
  });

  it("refuses a file readable by group or others, saying chmod 600", () => {
    const message = refusal({ tokens: [{ token: "token-number-one" }] }, { mode: 0o644 });
    expect(message).to.match(/open to group or others \(mode 644\): chmod 600 /);
  });

  it("refuses a file that is missing", () => {
    expect(() => parseConfig({ ...KEYS, ACCESS_FILE: path.join(dir, "nowhere.json") })).to.throw(ConfigError, /cannot be read \(ENOENT\)/);
  });

  it("checks policies against the egress rules: hosts, ports, schemes, the proxy URL, unknown fields", () => {
    const withPolicy = (policy: unknown): string =>
      refusal({ tokens: [{ token: "token-number-one", clients: ["a"], policy: "p" }], policies: { p: policy } });
    expect(withPolicy({ egress: { allow: ["shop.example", "http://x"] } })).to.contain(
      'policies["p"].egress.allow[1]: "http://x" is not a host name',
    );
    expect(withPolicy({ egress: { ports: [0] } })).to.contain('policies["p"].egress.ports[0]: 0 is not a port');
    expect(withPolicy({ egress: { schemes: ["ftp"] } })).to.contain(
      'policies["p"].egress.schemes[0]: "ftp" is not a scheme (http, https, ws, wss)',
    );
    expect(withPolicy({ egress: { alow: [] } })).to.contain('policies["p"].egress: "alow" is not a field here');
    expect(withPolicy({ egress: { blockPrivateNetworks: "yes" } })).to.contain("blockPrivateNetworks: must be true or false");
    const proxy = withPolicy({ upstreamProxy: "socks5://user:hidden-pass@host:1080" });
    expect(proxy).to.contain('policies["p"].upstreamProxy: must be an http(s) URL');
    expect(proxy, "the proxy's credentials are never echoed").not.to.contain("hidden-pass");
  });

  it("refuses a token given twice, a short token, a policy on a token of every client, never echoing a token", () => {
    const twice = refusal({ tokens: [{ token: "full-hub-token-123" }] }, { env: { HUB_TOKEN: "full-hub-token-123" } });
    expect(twice).to.contain("tokens[0].token is given twice");
    expect(twice).not.to.contain("full-hub-token-123");
    expect(refusal({ tokens: [{ token: "short" }] })).to.contain("tokens[0].token: must be a string of at least 8 characters");
    const unscoped = refusal({ tokens: [{ token: "token-number-one", policy: "p" }], policies: { p: {} } });
    expect(unscoped).to.contain("tokens[0]: a token with a policy must list its clients");
  });

  it("counts as tokens: agents then need a key", () => {
    const file = path.join(dir, "access.json");
    writeFileSync(file, JSON.stringify({ tokens: [{ token: "token-number-one" }] }), { mode: 0o600 });
    expect(() => parseConfig({ ACCESS_FILE: file })).to.throw(ConfigError, /AUTH_KEY/);
  });
});
