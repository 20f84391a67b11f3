import { expect } from "chai";
import v8 from "node:v8";
import vm from "node:vm";
import { newId } from "../../src/ids.js";

v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const KEPT = 20_000;

describe("newId", () => {
  it("gives distinct UUID v4 strings", () => {
    const ids = Array.from({ length: 1_000 }, () => newId());
    for (const id of ids) expect(id).to.match(UUID_V4);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it("keeps an id in about the heap its 36 characters need (a randomUUID() kept as it is takes about 480 bytes)", () => {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const kept = Array.from({ length: KEPT }, () => newId());
    collectGarbage();
    const perId = (process.memoryUsage().heapUsed - before) / kept.length;
    // A flat 36-character string is 48 bytes on a 64-bit heap, its slot in the array 8.
    expect(perId, "heap bytes per kept id").to.be.below(150);
    expect(kept).to.have.lengthOf(KEPT);
  });
});
