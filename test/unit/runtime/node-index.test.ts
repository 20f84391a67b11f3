import { expect } from "chai";
import { NodeIndex } from "../../../src/runtime/node-index.js";

describe("runtime/node-index NodeIndex", () => {
  it("keeps a backendNodeId, a page-script id per world, and the same numbers in another scope apart", () => {
    const index = new NodeIndex<string>();
    index.set("", { backendNodeId: 7 }, "tab backend");
    index.set("", { contextId: 1, pageNode: 7 }, "tab world 1");
    index.set("", { contextId: 2, pageNode: 7 }, "tab world 2");
    index.set("F1@L1", { backendNodeId: 7 }, "frame backend");
    index.set("F1@L1", { contextId: 1, pageNode: 7 }, "frame world");
    expect(index.get("", { backendNodeId: 7 })).to.equal("tab backend");
    expect(index.get("", { contextId: 1, pageNode: 7 })).to.equal("tab world 1");
    expect(index.get("", { contextId: 2, pageNode: 7 })).to.equal("tab world 2");
    expect(index.get("F1@L1", { backendNodeId: 7 })).to.equal("frame backend");
    expect(index.get("F1@L1", { contextId: 1, pageNode: 7 })).to.equal("frame world");
    expect(index.get("F1@L2", { backendNodeId: 7 })).to.equal(undefined);
    index.delete("", { contextId: 1, pageNode: 7 });
    index.delete("F1@L1", { backendNodeId: 7 });
    expect(index.get("", { contextId: 1, pageNode: 7 })).to.equal(undefined);
    expect(index.get("F1@L1", { backendNodeId: 7 })).to.equal(undefined);
    expect(index.get("F1@L1", { contextId: 1, pageNode: 7 })).to.equal("frame world");
    index.clear();
    expect(index.get("", { backendNodeId: 7 })).to.equal(undefined);
  });
});
