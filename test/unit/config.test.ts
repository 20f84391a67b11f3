import { expect } from "chai";
import { parseConfig } from "../../src/config.js";

describe("config", () => {
  it("has the documented defaults", () => {
    const config = parseConfig({});
    expect(config).to.include({ host: "127.0.0.1", port: 8080, defaultClientId: "local", defaultTimeoutMs: 30_000, maxBatch: 100, maxInflight: 256 });
    expect(config.maxPayloadBytes).to.equal(32 * 1024 * 1024);
    expect(config.dialogPolicy).to.equal("dismiss");
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it("parses scoped tokens", () => {
    const config = parseConfig({ HUB_TOKEN: "root-token-1", HUB_TOKENS: "aaaaaaaa,bbbbbbbb:x|y" });
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

  it("never puts a token in its error message", () => {
    expect(() => parseConfig({ HUB_TOKENS: "secret-value-with space" })).to.throw().with.property("message").that.does.not.include("secret-value");
  });
});
