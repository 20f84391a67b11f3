import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { redisClientOptions } from "../../../src/cluster/redis-link.js";

describe("redisClientOptions: the link's Redis connections", () => {
  let dir = "";
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), "tabwire-redis-ca-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("uses TLS with REDIS_CA_FILE as its only CA for rediss://", () => {
    const caFile = path.join(dir, "ca.pem");
    writeFileSync(caFile, "-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n");
    const options = redisClientOptions("rediss://redis.example:6380", caFile);
    expect(options.url).to.equal("rediss://redis.example:6380");
    expect(options.socket).to.include({ tls: true });
    expect(String((options.socket as { ca?: Buffer }).ca)).to.include("not checked here");
  });

  it("adds no TLS options of its own without REDIS_CA_FILE (rediss:// alone checks against the system's CAs)", () => {
    const options = redisClientOptions("redis://127.0.0.1:6379", null);
    expect(options.socket).not.to.have.property("tls");
    expect(options.socket).not.to.have.property("ca");
    expect(options.disableOfflineQueue).to.equal(true);
  });
});
