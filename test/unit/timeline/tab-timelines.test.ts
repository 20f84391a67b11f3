import { expect } from "chai";
import type { ClientManager, TabEntry } from "../../../src/clients/client-manager.js";
import { HubError } from "../../../src/errors.js";
import { TabTimelines } from "../../../src/timeline/tab-timelines.js";
import { timelineSettings } from "../../../src/timeline-settings.js";

/** The part of ClientManager the timelines ask: tabs by id, their owners, and who may see which client. */
function fakeClients(): { clients: ClientManager; tabs: Map<string, string> } {
  const tabs = new Map<string, string>();
  const entry = (tabId: string): TabEntry | undefined => {
    const clientId = tabs.get(tabId);
    return clientId === undefined
      ? undefined
      : {
          target: `${clientId}:${tabId}`,
          clientId,
          tabId,
          url: "https://shop.example/?token=abc",
          title: "",
          agent: null,
          activatedAt: null,
        };
  };
  const canSee = (caller: { scope: ReadonlySet<string> | null }, clientId: string): boolean =>
    caller.scope === null || caller.scope.has(clientId);
  const tabIdOf = (target: string, caller: { scope: ReadonlySet<string> | null }): string | undefined => {
    const [clientId = "", tabId = ""] = target.split(":");
    return tabs.get(tabId) === clientId && canSee(caller, clientId) ? tabId : undefined;
  };
  const clients = {
    ownerOf: (tabId: string) => tabs.get(tabId) ?? "local",
    entryOf: entry,
    canSee,
    tabIdOf,
    resolve: (target: string, caller: { scope: ReadonlySet<string> | null }) => {
      const tabId = tabIdOf(target, caller);
      const found = tabId === undefined ? undefined : entry(tabId);
      if (!found) throw new HubError("TARGET_NOT_FOUND", `no tab ${target}; list tabs with tabs.list`);
      return found;
    },
  };
  return { clients: clients as unknown as ClientManager, tabs };
}

const ALPHA = { scope: new Set(["alpha"]) };
const BETA = { scope: new Set(["beta"]) };
const note = (summary: string) => ({ seq: 0, at: Date.now(), kind: "console" as const, summary });

describe("TabTimelines", () => {
  it("keeps a tab's entries for its own client only, its URL redacted; another client's read is TARGET_NOT_FOUND", () => {
    const { clients, tabs } = fakeClients();
    tabs.set("T1", "alpha");
    const timelines = new TabTimelines(timelineSettings({}), clients);
    timelines.record("T1", note("hello"));
    const read = timelines.read("alpha:T1", ALPHA);
    expect(read.ring.after(0, 10).map((e) => e.summary)).to.deep.equal(["hello"]);
    expect(read.url).to.equal("https://shop.example/?token=[redacted]");
    expect(() => timelines.read("alpha:T1", BETA)).to.throw(HubError, /no tab alpha:T1/);
    expect(timelines.forCall("alpha:T1", BETA)).to.equal(undefined);
  });

  it("starts a new timeline when the tab changes owner: the old owner's entries are not handed on", () => {
    const { clients, tabs } = fakeClients();
    tabs.set("T1", "local");
    const timelines = new TabTimelines(timelineSettings({}), clients);
    timelines.record("T1", note("before the claim"));
    tabs.set("T1", "agent-x");
    timelines.record("T1", note("after"));
    expect(
      timelines
        .read("agent-x:T1", { scope: null })
        .ring.after(0, 10)
        .map((e) => e.summary),
    ).to.deep.equal(["after"]);
  });

  it("keeps closed tabs' timelines, the newest TIMELINE_CLOSED_TABS of each client, for their owner only", () => {
    const { clients, tabs } = fakeClients();
    const timelines = new TabTimelines(timelineSettings({ TIMELINE_CLOSED_TABS: "2" }), clients);
    for (const [tabId, clientId] of [
      ["A", "alpha"],
      ["B", "alpha"],
      ["C", "alpha"],
      ["D", "beta"],
    ] as const) {
      tabs.set(tabId, clientId);
      timelines.record(tabId, note(tabId));
      const entry = clients.entryOf(tabId)!;
      tabs.delete(tabId);
      timelines.closed(entry);
    }
    expect(() => timelines.read("alpha:A", ALPHA)).to.throw(HubError);
    expect(timelines.read("alpha:B", ALPHA).isClosed).to.equal(true);
    expect(
      timelines
        .read("alpha:C", ALPHA)
        .ring.after(0, 10)
        .map((e) => e.summary),
    ).to.deep.equal(["C"]);
    expect(timelines.read("beta:D", BETA).ring.size).to.equal(1);
    expect(() => timelines.read("beta:D", ALPHA)).to.throw(HubError, /no tab beta:D/);
  });

  it("keeps closed tabs' timelines hub-wide within TIMELINE_CLOSED_TABS x TIMELINE_MAX_BYTES: clients that come and go push out the oldest", () => {
    const { clients, tabs } = fakeClients();
    const settings = timelineSettings({ TIMELINE_CLOSED_TABS: "2", TIMELINE_MAX_BYTES: String(64 * 1024) });
    const timelines = new TabTimelines(settings, clients);
    const text = "x".repeat(10_000);
    // A new client each time, one tab each, about 20 KB a timeline: 200 of them would be 4 MB.
    for (let client = 0; client < 200; client += 1) {
      const tabId = `T${client}`;
      tabs.set(tabId, `c${client}`);
      timelines.record(tabId, note(text));
      timelines.record(tabId, note(text));
      const entry = clients.entryOf(tabId)!;
      tabs.delete(tabId);
      timelines.closed(entry);
      expect(timelines.closedKept.bytes).to.be.at.most(2 * 64 * 1024);
    }
    expect(timelines.closedKept.timelines).to.be.within(1, 7);
    // The newest are the ones kept.
    expect(timelines.read("c199:T199", { scope: null }).isClosed).to.equal(true);
    expect(() => timelines.read("c0:T0", { scope: null })).to.throw(HubError);
  });

  it("counts a closed timeline out of the hub-wide sum with the bytes it came in with, though a read dropped its expired entries since", () => {
    const { clients, tabs } = fakeClients();
    const timelines = new TabTimelines(timelineSettings({ TIMELINE_CLOSED_TABS: "1" }), clients);
    const closeWith = (tabId: string, texts: string[]): number => {
      tabs.set(tabId, "alpha");
      for (const text of texts) timelines.record(tabId, note(text));
      const entry = clients.entryOf(tabId)!;
      tabs.delete(tabId);
      timelines.closed(entry);
      return timelines.read(entry.target, ALPHA).ring.bytes;
    };
    const first = closeWith("A", ["x".repeat(10_000), "y".repeat(10_000), "z".repeat(10_000)]);
    expect(timelines.closedKept.bytes).to.equal(first);
    // Two hours on, a read of the closed tab drops its expired entries (the newest stays): the ring holds a third.
    const read = timelines.read("alpha:A", ALPHA);
    expect(read.ring.after(0, 10, { now: Date.now() + 2 * 3_600_000 }).map((e) => e.summary[0])).to.deep.equal(["z"]);
    expect(read.ring.bytes).to.be.below(first / 2);
    // The next closed tab of the client pushes A out (TIMELINE_CLOSED_TABS=1): the sum is the new one's bytes alone.
    const second = closeWith("B", ["small"]);
    expect(() => timelines.read("alpha:A", ALPHA)).to.throw(HubError);
    expect(timelines.closedKept).to.deep.equal({ timelines: 1, bytes: second });
  });

  it("records nothing with TIMELINE_ENABLED=false, and reads an open tab's as empty", () => {
    const { clients, tabs } = fakeClients();
    tabs.set("T1", "alpha");
    const timelines = new TabTimelines(timelineSettings({ TIMELINE_ENABLED: "false" }), clients);
    timelines.record("T1", note("hello"));
    expect(timelines.forCall("alpha:T1", ALPHA)).to.equal(undefined);
    expect(timelines.read("alpha:T1", ALPHA).ring.size).to.equal(0);
  });
});
