import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { parseConfig } from "../../src/config.js";
import { closeLogging, configureLogging, redact } from "../../src/log.js";

describe("log redaction", () => {
  const logDir = mkdtempSync(path.join(os.tmpdir(), "tabwire-redact-"));
  after(() => closeLogging());

  it("hides the user:password@ of any URL, a long URL password anywhere, and never a short one's letters elsewhere", () => {
    const env = {
      LOG_DIR: logDir,
      LOG_LEVEL: "error",
      CLUSTER_SECRET: "cluster-secret-value",
      CDP_URL: "http://u:long-cdp-password@127.0.0.1:9222/?token=cdp-token-value",
    };
    configureLogging(parseConfig({ ...env, REDIS_URL: "redis://user:p@127.0.0.1:6379" }));
    expect(redact("embedded Chrome stopped")).to.equal("embedded Chrome stopped");
    expect(redact("cannot reach redis://user:p@127.0.0.1:6379: refused")).to.equal(
      "cannot reach redis://[redacted]@127.0.0.1:6379: refused",
    );
    expect(redact("WRONGPASS long-cdp-password and cdp-token-value and cluster-secret-value")).to.equal(
      "WRONGPASS [redacted] and [redacted] and [redacted]",
    );
  });

  it("hides ACCESS_FILE's tokens and the passwords of its upstream proxies", () => {
    const file = path.join(logDir, "access.json");
    const policies = { p: { upstreamProxy: "http://user:long-proxy-password@proxy.example:3128" } };
    writeFileSync(file, JSON.stringify({ tokens: [{ token: "access-file-token-1", clients: ["a"], policy: "p" }], policies }));
    chmodSync(file, 0o600);
    configureLogging(parseConfig({ LOG_DIR: logDir, LOG_LEVEL: "error", AUTH_KEY: "agent-key-of-16-chars", ACCESS_FILE: file }));
    expect(redact("token access-file-token-1, proxy said long-proxy-password")).to.equal("token [redacted], proxy said [redacted]");
  });
});
