import { expect } from "chai";
import { CAPABILITIES } from "../../src/capabilities.js";
import { METHODS } from "../../src/methods/index.js";

describe("capabilities: what each method needs of a token", () => {
  const methods = Object.values(METHODS);

  it("every method needs exactly one capability, or only its connection", () => {
    const needs = new Set<string>([...CAPABILITIES, "connection"]);
    for (const method of methods) expect(needs.has(method.traits.needs), method.name).to.equal(true);
  });

  it("read covers the methods that only read, and nothing that changes a page, runs code or drives an agent", () => {
    const read = methods.filter((method) => method.traits.needs === "read").map((method) => method.name);
    for (const name of read) expect(METHODS[name as keyof typeof METHODS].traits.reads, name).to.equal(true);
    expect(read).to.include.members(["tabs.list", "snapshot", "screenshot", "content", "console.list", "network.list", "network.get"]);
    expect(read).to.include.members(["network.har", "cookies.get", "state.export", "hub.stats"]);
  });

  it("act, script and agents hold what the issue names", () => {
    const of = (need: string): string[] => methods.filter((method) => method.traits.needs === need).map((method) => method.name);
    expect(of("act")).to.include.members([
      "click",
      "type",
      "press",
      "scroll",
      "hover",
      "select",
      "fill",
      "navigate",
      "tabs.open",
      "tabs.close",
    ]);
    expect(of("script")).to.have.members(["evaluate", "callOn", "network.route", "network.unroute", "emulate", "network.conditions"]);
    expect(of("agents")).to.have.members(["agent.run", "agent.call", "agent.pause", "agent.resume"]);
    expect(of("connection")).to.have.members([
      "ping",
      "cancel",
      "session.resume",
      "console.unsubscribe",
      "network.unsubscribe",
      "screencast.stop",
    ]);
  });
});
