import { expect } from "chai";
import { parseCliSettings, parseConfig, RESULT_BYTES_HARD_CAP } from "../../src/config.js";

describe("config", () => {
  it("has the documented defaults", () => {
    const config = parseConfig({});
    expect(config).to.include({
      host: "127.0.0.1",
      port: 8080,
      defaultClientId: "local",
      defaultTimeoutMs: 30_000,
      maxBatch: 100,
      maxInflight: 256,
    });
    expect(config.maxPayloadBytes).to.equal(32 * 1024 * 1024);
    expect(config.dialogPolicy).to.equal("dismiss");
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it("keeps tabs' timelines by default within the documented bounds, pictures off; a bad TIMELINE_* value is named", () => {
    expect(parseConfig({}).timeline).to.deep.equal({
      enabled: true,
      maxEntries: 5_000,
      maxBytes: 2 * 1024 * 1024,
      maxAgeMs: 3_600_000,
      closedTtlMs: 600_000,
      closedTabs: 20,
      pictures: false,
    });
    expect(parseConfig({ TIMELINE_PICTURES: "on", TIMELINE_ENABLED: "false" }).timeline).to.include({ pictures: true, enabled: false });
    expect(() => parseConfig({ TIMELINE_PICTURES: "yes" })).to.throw(/TIMELINE_PICTURES.*off, on/);
    expect(() => parseConfig({ TIMELINE_MAX_BYTES: "10" })).to.throw(/TIMELINE_MAX_BYTES/);
  });

  it("parses scoped tokens", () => {
    const config = parseConfig({ HUB_TOKEN: "root-token-1", HUB_TOKENS: "aaaaaaaa,bbbbbbbb:x|y", AUTH_KEY: "agent-key-1" });
    expect(config.tokens.map((t) => [t.token, t.scope && [...t.scope]])).to.deep.equal([
      ["root-token-1", null],
      ["aaaaaaaa", null],
      ["bbbbbbbb", ["x", "y"]],
    ]);
  });

  for (const [name, value, pattern] of [
    ["PORT", "http", /PORT: expected a whole number/],
    ["PORT", "70000", /PORT: must be between 0 and 65535/],
    ["DIALOG_POLICY", "maybe", /DIALOG_POLICY: expected one of dismiss, accept/],
    ["EVALUATE_ENABLED", "yes please", /EVALUATE_ENABLED: expected true or false/],
    ["HUB_TOKEN", "short", /HUB_TOKEN: a token needs at least 8 characters/],
    ["CDP_URL", "ftp://x", /CDP_URL: must start with/],
    ["DEFAULT_CLIENT_ID", "../etc", /DEFAULT_CLIENT_ID/],
  ] as const) {
    it(`fails naming ${name} for ${JSON.stringify(value)}`, () => {
      expect(() => parseConfig({ [name]: value })).to.throw(pattern);
    });
  }

  it("parses agent keys: AUTH_KEY reaches every client id, AGENT_KEYS binds each key to its own", () => {
    const config = parseConfig({ AUTH_KEY: "any-client-key", AGENT_KEYS: "alpha-key-1:alpha,team-key-1:beta|gamma" });
    expect(config.agentKeys.map((k) => [k.token, k.scope && [...k.scope]])).to.deep.equal([
      ["any-client-key", null],
      ["alpha-key-1", ["alpha"]],
      ["team-key-1", ["beta", "gamma"]],
    ]);
  });

  it("refuses tokens without an agent key, naming AUTH_KEY and AGENT_KEYS", () => {
    for (const env of [{ HUB_TOKEN: "root-token-1" }, { HUB_TOKENS: "scoped-token:alpha" }]) {
      expect(() => parseConfig(env)).to.throw(/AUTH_KEY.*AGENT_KEYS/);
    }
    expect(parseConfig({ HUB_TOKEN: "root-token-1", AGENT_KEYS: "alpha-key-1:alpha" }).agentKeys).to.have.length(1);
  });

  it("refuses a non-loopback HOST without a token unless ALLOW_OPEN=true", () => {
    for (const host of ["0.0.0.0", "192.168.1.2", "::", "hub.example"])
      expect(() => parseConfig({ HOST: host }), host).to.throw(/HOST: .*ALLOW_OPEN=true/);
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1"]) expect(parseConfig({ HOST: host }).host).to.equal(host);
    expect(parseConfig({ HOST: "0.0.0.0", ALLOW_OPEN: "true" }).allowOpen).to.equal(true);
    expect(parseConfig({ HOST: "0.0.0.0", HUB_TOKEN: "root-token-1", AUTH_KEY: "agent-key-1" }).host).to.equal("0.0.0.0");
  });

  it("requires CLUSTER_SECRET with REDIS_URL, and REDIS_CA_FILE only with rediss://", () => {
    expect(() => parseConfig({ REDIS_URL: "redis://127.0.0.1:6379" })).to.throw(/CLUSTER_SECRET: REDIS_URL is set/);
    expect(() => parseConfig({ REDIS_URL: "redis://127.0.0.1:6379", CLUSTER_SECRET: "short" })).to.throw(
      /CLUSTER_SECRET: a token needs at least 16/,
    );
    expect(parseConfig({ REDIS_URL: "redis://127.0.0.1:6379", CLUSTER_SECRET: "0123456789abcdef" }).clusterSecret).to.equal(
      "0123456789abcdef",
    );
    const signed = { CLUSTER_SECRET: "0123456789abcdef" };
    expect(() => parseConfig({ ...signed, REDIS_URL: "redis://h:6379", REDIS_CA_FILE: "/etc/hostname" })).to.throw(
      /REDIS_CA_FILE: .*rediss:\/\//,
    );
    expect(() => parseConfig({ ...signed, REDIS_URL: "rediss://h:6379", REDIS_CA_FILE: "/nonexistent/ca.pem" })).to.throw(
      /REDIS_CA_FILE: .*does not exist/,
    );
  });

  it("caps MAX_RESULT_BYTES at the hard cap and MAX_CONNECTIONS_PER_IP at MAX_CONNECTIONS", () => {
    expect(() => parseConfig({ MAX_RESULT_BYTES: String(RESULT_BYTES_HARD_CAP + 1) })).to.throw(/MAX_RESULT_BYTES: must be between/);
    expect(() => parseConfig({ MAX_CONNECTIONS: "10", MAX_CONNECTIONS_PER_IP: "11" })).to.throw(/MAX_CONNECTIONS_PER_IP/);
    expect(parseConfig({ MAX_CONNECTIONS: "10" }).maxConnectionsPerIp).to.equal(10);
  });

  it("never puts a token in its error message", () => {
    expect(() => parseConfig({ HUB_TOKENS: "secret-value-with space" }))
      .to.throw()
      .with.property("message")
      .that.does.not.include("secret-value");
  });

  it("the command line dials TABWIRE_URL, else the hub's own HOST and PORT (a wildcard HOST on loopback)", () => {
    expect(parseCliSettings({})).to.deep.equal({ hubUrl: "ws://127.0.0.1:8080", isHubNamed: false, token: undefined });
    expect(parseCliSettings({ PORT: "9123", HUB_TOKEN: "hub-token-1" })).to.deep.equal({
      hubUrl: "ws://127.0.0.1:9123",
      isHubNamed: false,
      token: "hub-token-1",
    });
    expect(parseCliSettings({ HOST: "0.0.0.0", PORT: "9123" }).hubUrl).to.equal("ws://127.0.0.1:9123");
    expect(parseCliSettings({ HOST: "::", PORT: "9123" }).hubUrl).to.equal("ws://[::1]:9123");
    expect(parseCliSettings({ HOST: "fd00::5", PORT: "9123" }).hubUrl).to.equal("ws://[fd00::5]:9123");
    expect(parseCliSettings({ TABWIRE_URL: "ws://hub.example:1", PORT: "9123", TABWIRE_TOKEN: "t", HUB_TOKEN: "h" })).to.deep.equal({
      hubUrl: "ws://hub.example:1",
      isHubNamed: true,
      token: "t",
    });
    expect(() => parseCliSettings({ PORT: "eighty" })).to.throw(/PORT/);
  });
});
