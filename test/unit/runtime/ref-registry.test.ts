import { expect } from "chai";
import { ErrorCode } from "../../../src/errors.js";
import { MAX_REFS, RefRegistry } from "../../../src/runtime/ref-registry.js";

const codeOf = (run: () => unknown): number | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: number }).code;
  }
};

describe("runtime/ref-registry RefRegistry", function () {
  // Two tests hand out a few hundred thousand refs: a loaded machine needs more than mocha's default 2 s.
  this.timeout(20_000);
  it("names a node by one ref however often it is seen, and a node of another process or document by another", () => {
    const refs = new RefRegistry();
    const top = refs.refOf({ backendNodeId: 7 });
    expect(refs.refOf({ backendNodeId: 7 })).to.equal(top);
    const framed = refs.refOf({ backendNodeId: 7, remoteFrame: "F1", document: "L1" });
    const reloaded = refs.refOf({ backendNodeId: 7, remoteFrame: "F1", document: "L2" });
    expect(new Set([top, framed, reloaded]).size).to.equal(3);
    expect(refs.node(framed)).to.deep.equal({ backendNodeId: 7, remoteFrame: "F1", document: "L1" });
  });

  it("links a node the page script read to its backendNodeId: both sources then give it the same ref", () => {
    const refs = new RefRegistry();
    const world = { pageNode: 3, contextId: 11 };
    const ref = refs.refOf(world);
    expect(refs.hasWorldOnly).to.equal(true);
    expect(refs.worldOnly()).to.deep.equal([world]);
    refs.link(world, 42);
    expect(refs.hasWorldOnly).to.equal(false);
    expect(refs.refOf({ backendNodeId: 42 })).to.equal(ref);
    expect(refs.node(ref)).to.deep.equal({ backendNodeId: 42 });
    const chromeFirst = refs.refOf({ backendNodeId: 50 });
    expect(refs.hasBackendOnly).to.equal(true);
    refs.link({ pageNode: 9, contextId: 11 }, 50);
    expect(refs.refOf({ pageNode: 9, contextId: 11 })).to.equal(chromeFirst);
  });

  it("a forgotten ref and refs of a page the tab left are NODE_NOT_FOUND, and their numbers are never handed out again", () => {
    const refs = new RefRegistry();
    const kept = refs.refOf({ backendNodeId: 1 });
    const removed = refs.refOf({ backendNodeId: 2 });
    refs.forget({ backendNodeId: 2 });
    expect(() => refs.node(removed)).to.throw(/gone from its page/);
    refs.clear();
    expect(() => refs.node(kept)).to.throw(/page this tab has left/);
    expect(codeOf(() => refs.node(kept))).to.equal(ErrorCode.NODE_NOT_FOUND);
    expect(refs.refOf({ backendNodeId: 1 })).to.not.equal(kept);
    expect(() => refs.node("e123456")).to.throw(/never handed out/);
    expect(() => refs.node(refs.refOf(null))).to.throw(/no DOM node/);
  });

  it("holds at most MAX_REFS refs: a page that churns elements drops those no snapshot showed for longest", () => {
    const refs = new RefRegistry();
    let early = "";
    let everySnapshot = "";
    for (let snapshot = 0; snapshot < 30; snapshot++) {
      refs.beginSnapshot();
      everySnapshot = refs.refOf({ backendNodeId: 1 });
      for (let at = 0; at < 10_000; at++) {
        const ref = refs.refOf({ backendNodeId: 1_000_000 + snapshot * 10_000 + at });
        if (snapshot === 0 && at === 0) early = ref;
      }
      expect(refs.size).to.be.at.most(MAX_REFS);
    }
    expect(() => refs.node(early)).to.throw(/gone from its page/);
    expect(refs.node(everySnapshot)).to.deep.equal({ backendNodeId: 1 });
    expect(refs.refOf({ backendNodeId: 1 })).to.equal(everySnapshot);
  });

  it("stays bounded when refs are handed out with no snapshot between (an agent's actions only), dropping the oldest first", () => {
    const refs = new RefRegistry();
    const first = refs.refOf({ backendNodeId: 1 });
    for (let at = 2; at <= MAX_REFS * 2; at++) refs.refOf({ backendNodeId: at });
    expect(refs.size).to.be.at.most(MAX_REFS);
    expect(() => refs.node(first)).to.throw(/gone from its page/);
    expect(refs.node(refs.refOf({ backendNodeId: MAX_REFS * 2 }))).to.deep.equal({ backendNodeId: MAX_REFS * 2 });
  });
});
