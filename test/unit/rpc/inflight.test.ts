import { expect } from "chai";
import { InflightTable } from "../../../src/rpc/inflight.js";

describe("rpc/inflight", () => {
  it("cancels one request by id and leaves the others running", () => {
    const table = new InflightTable();
    const one = table.add(1);
    const two = table.add("1");
    expect(table.cancel(1, new Error("stop"))).to.equal(true);
    expect(one.controller.signal.aborted).to.equal(true);
    expect(two.controller.signal.aborted).to.equal(false);
    expect(table.cancel(99, new Error("stop"))).to.equal(false);
  });

  it("frees entries when done and cancels everything on close", () => {
    const table = new InflightTable();
    const request = table.add(1);
    const notification = table.add(undefined);
    expect(table.size).to.equal(2);
    table.cancelAll(new Error("closed"));
    expect(request.controller.signal.aborted && notification.controller.signal.aborted).to.equal(true);
    request.done();
    notification.done();
    expect(table.size).to.equal(0);
  });
});
