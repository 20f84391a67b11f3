import { expect } from "chai";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AtomicFile } from "../../../src/clients/atomic-file.js";

describe("AtomicFile", () => {
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "tabwire-atomic-"));
  });
  afterEach(async () => rm(folder, { recursive: true, force: true }));

  it("two writers of one path at once both finish, leave one whole text (0600) and no temporary file", async () => {
    // The fuzz run made one client persistent from many calls at once: each made its own AtomicFile of the same
    // path, and one renamed the other's temporary file away (ENOENT, answered INTERNAL_ERROR).
    const file = path.join(folder, "persistent", "client.json");
    const texts = Array.from({ length: 20 }, (_, n) => JSON.stringify({ n, pad: "x".repeat(10_000) }));
    await Promise.all(texts.map((text) => new AtomicFile(file).write(text)));
    expect(texts).to.include(await readFile(file, "utf8"));
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    expect(await readdir(path.dirname(file))).to.deep.equal(["client.json"]);
  });

  it("writes of one writer coalesce: the newest text is the one left", async () => {
    const file = new AtomicFile(path.join(folder, "client.json"));
    await Promise.all(["a", "b", "c"].map((text) => file.write(text)));
    expect(await readFile(file.path, "utf8")).to.equal("c");
  });
});
