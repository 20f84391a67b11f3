import { expect } from "chai";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../../src/config.js";
import { closeLogging, configureLogging, logApi } from "../../src/log.js";

describe("api.log lines", () => {
  it("are JSON with the request's fields in order, any target text escaped, and secrets in it redacted", () => {
    const logDir = mkdtempSync(path.join(tmpdir(), "tabwire-api-log-"));
    const token = "api-log-secret-token-123";
    configureLogging(parseConfig({ LOG_DIR: logDir, HUB_TOKEN: token, AUTH_KEY: "api-log-agent-key", LOG_LEVEL: "error" }));
    try {
      logApi({ method: "evaluate", target: `local:"quoted"\n\u00e9${token}`, durationMs: 0.45, outcome: "ok", peer: "127.0.0.1" });
      logApi({ method: "ping", durationMs: 0.01, outcome: "INVALID_PARAMS", peer: "::1" });
    } finally {
      closeLogging();
    }
    const lines = readFileSync(path.join(logDir, "api.log"), "utf8").trim().split("\n");
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(first ?? {})).to.deep.equal(["level", "message", "method", "target", "durationMs", "outcome", "peer", "timestamp"]);
    expect(first).to.include({
      level: "info",
      message: "request",
      method: "evaluate",
      target: 'local:"quoted"\n\u00e9[redacted]',
      durationMs: 0.45,
      outcome: "ok",
    });
    expect(Date.parse(String(first?.timestamp))).to.be.closeTo(Date.now(), 60_000);
    expect(second).to.not.have.property("target");
    expect(second).to.include({ method: "ping", outcome: "INVALID_PARAMS", peer: "::1" });
  });
});
