import { expect } from "chai";
import { AgentCalls } from "../../../src/agents/agent-calls.js";
import { AgentRegistry, type AgentRecord } from "../../../src/agents/agent-registry.js";
import { Budget } from "../../../src/budget.js";
import { ClientManager } from "../../../src/clients/client-manager.js";
import { FakeBrowser } from "../support/fake-browser.js";

const EVERYONE = { scope: null };
const ONLY_A = { scope: new Set(["a"]) };

function hubOf(): { browser: FakeBrowser; agents: AgentRegistry; clients: ClientManager } {
  const browser = new FakeBrowser();
  const agents = new AgentRegistry();
  const clients = new ClientManager(browser.asBrowser(), agents, { defaultClientId: "local", clientIdleMs: 60_000 });
  return { browser, agents, clients };
}

function agent(clientId: string): AgentRecord {
  const [baseId = "", tabId = ""] = clientId.split(":");
  return {
    clientId,
    baseId,
    tabId,
    state: "connected",
    connectedAt: 1,
    capabilities: {},
    link: { replace: () => {}, calls: new AgentCalls(() => {}, "t") },
  };
}

describe("ClientManager (fake Chrome: who owns which tab, and who may see it)", () => {
  it("gives a page of a client's browser context to that client, its popup too, and the rest to the default client", async () => {
    const { browser, clients } = hubOf();
    browser.chrome.answer = (command) => (command.method === "Target.createBrowserContext" ? { browserContextId: "CTX-A" } : {});
    const budget = new Budget(1_000);
    expect(await clients.contexts.acquire("a", budget)).to.equal("CTX-A");
    budget.dispose();
    browser.open({ tabId: "T1", url: "https://a.example/", title: "A", browserContextId: "CTX-A" });
    browser.open({ tabId: "T2", url: "https://a.example/popup", title: "", browserContextId: "CTX-A", openerId: "T1" });
    browser.open({ tabId: "T3", url: "about:blank", title: "" });
    expect(clients.tabs(EVERYONE).map((tab) => tab.target)).to.deep.equal(["a:T1", "a:T2", "local:T3"]);
    expect(clients.tabCount("a")).to.equal(2);
  });

  it("shows a scoped caller only its clients' tabs; another client's target is TARGET_NOT_FOUND as if it did not exist", () => {
    const { browser, agents, clients } = hubOf();
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
    browser.open({ tabId: "T2", url: "about:blank", title: "" });
    agents.register(agent("a:T1"));
    expect(clients.tabs(ONLY_A).map((tab) => tab.target)).to.deep.equal(["a:T1"]);
    expect(clients.resolve("a:T1", ONLY_A).tabId).to.equal("T1");
    for (const target of ["local:T2", "a:T2", "a:NOPE"]) {
      expect(() => clients.resolve(target, ONLY_A), target)
        .to.throw()
        .with.property("errorName", "TARGET_NOT_FOUND");
    }
    expect(() => clients.resolve("not a target", EVERYONE))
      .to.throw()
      .with.property("errorName", "INVALID_PARAMS");
  });

  it("lets an agent claim an unclaimed default tab while it is connected, never another client's tab", () => {
    const { browser, agents, clients } = hubOf();
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
    const record = agent("a:T1");
    agents.register(record);
    expect(clients.ownerOf("T1")).to.equal("a");
    expect(clients.refusalOfAgent("b", "T1", null)).to.match(/not a tab of client b/);
    expect(clients.refusalOfAgent("a", "T1", new Set(["a"]))).to.equal(null);
    agents.remove(record);
    expect(clients.ownerOf("T1")).to.equal("local");
  });

  it("announces a tab that opens and one that closes with the owner it had", () => {
    const { browser, agents, clients } = hubOf();
    const events: string[] = [];
    clients.on("tabOpened", (entry) => events.push(`opened ${entry.target}`));
    clients.on("tabClosed", (entry, reason) => events.push(`closed ${entry.target} ${reason}`));
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
    agents.register(agent("a:T1"));
    browser.close("T1");
    expect(events).to.deep.equal(["opened local:T1", "closed a:T1 closed"]);
    expect(clients.tabs(EVERYONE)).to.deep.equal([]);
  });
});
