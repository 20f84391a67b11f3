import { expect } from "chai";
import { InflightTable, type Cancellable } from "../../../src/rpc/inflight.js";

function call(): Cancellable & { reason: Error | null } {
  const entry = {
    reason: null as Error | null,
    cancel(reason: Error) {
      entry.reason = reason;
    },
  };
  return entry;
}

describe("rpc/inflight", () => {
  it("cancels one request by id and leaves the others running", () => {
    const table = new InflightTable();
    const one = call();
    const two = call();
    table.add(1, one);
    table.add("1", two);
    const stop = new Error("stop");
    expect(table.cancel(1, stop)).to.equal(true);
    expect(one.reason).to.equal(stop);
    expect(two.reason).to.equal(null);
    expect(table.cancel(99, stop)).to.equal(false);
  });

  it("frees entries when done and cancels everything on close", () => {
    const table = new InflightTable();
    const request = call();
    const notification = call();
    const requestDone = table.add(1, request);
    const notificationDone = table.add(undefined, notification);
    expect(table.size).to.equal(2);
    table.cancelAll(new Error("closed"));
    expect(request.reason?.message).to.equal("closed");
    expect(notification.reason?.message).to.equal("closed");
    requestDone();
    notificationDone();
    expect(table.size).to.equal(0);
  });

  it("keeps notifications apart from each other and from a request with id null", () => {
    const table = new InflightTable();
    const first = call();
    const second = call();
    const nullId = call();
    const firstDone = table.add(undefined, first);
    table.add(undefined, second);
    table.add(null, nullId);
    expect(table.size).to.equal(3);
    expect(table.has(null)).to.equal(true);
    firstDone();
    expect(table.size).to.equal(2);
    expect(table.cancel(null, new Error("stop"))).to.equal(true);
    expect([first.reason, second.reason, nullId.reason?.message]).to.deep.equal([null, null, "stop"]);
  });

  it("answers for a connection that never made a call", () => {
    const table = new InflightTable();
    expect(table.size).to.equal(0);
    expect(table.has(1)).to.equal(false);
    expect(table.cancel(1, new Error("stop"))).to.equal(false);
    table.cancelAll(new Error("closed"));
    expect(table.size).to.equal(0);
  });
});
