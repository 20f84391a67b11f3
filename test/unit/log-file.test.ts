import { expect } from "chai";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LogFile } from "../../src/log-file.js";
import { eventually } from "../support/eventually.js";

function freshDir(): string {
  return mkdtempSync(path.join(tmpdir(), "tabwire-log-file-"));
}

/** A LogFile of strings with the test's flush settings. */
function stringLog(file: string, flush: { flushMs: number; maxPending: number }): LogFile<string> {
  return new LogFile(file, { maxBytes: 1024 * 1024, maxFiles: 3, format: String, onError: () => {}, ...flush });
}

function lines(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.length > 0);
}

describe("LogFile", () => {
  it("writes queued entries together, as lines, within flushMs, appending to what the file had", async () => {
    const file = path.join(freshDir(), "api.log");
    writeFileSync(file, "earlier\n");
    let formatted = 0;
    const format = (entry: { n: string }): string => {
      formatted++;
      return entry.n;
    };
    const log = new LogFile(file, { maxBytes: 1024 * 1024, maxFiles: 3, format, onError: () => {}, flushMs: 50, maxPending: 100 });
    log.write({ n: "one" });
    log.write({ n: "two" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines(file), "nothing written at once").to.deep.equal(["earlier"]);
    expect(formatted, "no line made at once").to.equal(0);
    await eventually(async () => lines(file).length === 3, 5_000, "the queued lines written");
    expect(lines(file)).to.deep.equal(["earlier", "one", "two"]);
    log.close();
  });

  it("writes at once when maxPending entries wait, whatever flushMs", () => {
    const file = path.join(freshDir(), "api.log");
    const log = stringLog(file, { flushMs: 60_000, maxPending: 3 });
    log.write("a");
    log.write("b");
    expect(lines(file)).to.deep.equal([]);
    log.write("c");
    expect(lines(file)).to.deep.equal(["a", "b", "c"]);
    log.close();
  });

  it("loses no queued line on close, and writes nothing after it", () => {
    const file = path.join(freshDir(), "api.log");
    const log = stringLog(file, { flushMs: 10_000, maxPending: 100 });
    log.write("queued");
    log.close();
    log.write("late");
    log.flush();
    expect(lines(file)).to.deep.equal(["queued"]);
  });

  it("rolls over past maxBytes: the newest lines in the file itself, older ones numbered, no more than maxFiles", () => {
    const dir = freshDir();
    const file = path.join(dir, "api.log");
    const log = new LogFile(file, { maxBytes: 20, maxFiles: 3, format: String, onError: () => {}, flushMs: 10_000, maxPending: 100 });
    for (const line of ["line-0000", "line-0001", "line-0002", "line-0003", "line-0004", "line-0005", "line-0006", "line-0007"]) {
      log.write(line);
      log.flush();
    }
    log.close();
    expect(readdirSync(dir).sort()).to.deep.equal(["api.log", "api1.log", "api2.log"]);
    expect(lines(file)).to.deep.equal(["line-0006", "line-0007"]);
    expect(lines(path.join(dir, "api1.log"))).to.deep.equal(["line-0004", "line-0005"]);
    expect(lines(path.join(dir, "api2.log"))).to.deep.equal(["line-0002", "line-0003"]);
  });

  it("tells once of writes that fail (a full disk) and throws nothing at the caller", () => {
    const errors: Error[] = [];
    const log = new LogFile("/dev/full", {
      maxBytes: 1024 * 1024,
      maxFiles: 2,
      format: String,
      onError: (error) => errors.push(error),
      flushMs: 10_000,
      maxPending: 100,
    });
    for (let turn = 0; turn < 3; turn++) {
      log.write(`line ${turn}`);
      log.flush();
    }
    log.close();
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).to.deep.equal(["ENOSPC"]);
  });
});
