import { expect } from "chai";
import { EventEmitter } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { safeName, UploadFolder } from "../../../src/runtime/upload-folder.js";

describe("UploadFolder", () => {
  it("keeps every name inside its folder: separators, leading dots and control characters go", () => {
    expect(safeName("../../etc/passwd")).to.equal("_.._etc_passwd");
    expect(safeName("..\\..\\boot.ini")).to.equal("_.._boot.ini");
    expect(safeName("...")).to.equal("file");
    expect(safeName("a\u0000b\nc.txt")).to.equal("abc.txt");
    expect(safeName("x".repeat(300))).to.have.length(200);
  });

  it("writes an upload's files in a folder of the tab, both of two same-named files, and removes them when the tab goes", async () => {
    const tabs = new EventEmitter();
    const uploads = new UploadFolder(tabs as never, 20);
    try {
      const paths = await uploads.write("TAB1", [
        { name: "a.txt", data: Buffer.from("one") },
        { name: "a.txt", data: Buffer.from("two") },
        { name: "/etc/b.txt", data: Buffer.from("three") },
      ]);
      const folder = uploads.folderOf("TAB1") as string;
      for (const written of paths) expect(path.relative(folder, written)).to.not.match(/^\.\./);
      expect(paths.map((p) => readFileSync(p, "utf8"))).to.deep.equal(["one", "two", "three"]);
      expect(path.basename(paths[2] as string)).to.equal("_etc_b.txt");
      const over = await uploads.write("TAB1", [{ name: "c.txt", data: Buffer.alloc(10) }]).catch((error: Error) => error.message);
      expect(over).to.equal("this tab holds 20 bytes of uploads at most (MAX_UPLOAD_BYTES); close it to free them");
      expect(await uploads.write("TAB2", [{ name: "c.txt", data: Buffer.alloc(10) }])).to.have.length(1);
      tabs.emit("pageDestroyed", "TAB1", "closed");
      expect(existsSync(folder)).to.equal(false);
    } finally {
      await uploads.removeAll();
    }
  });
});
