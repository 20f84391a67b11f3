import { EventEmitter } from "node:events";
import { HubError } from "../errors.js";
import type { Browser, PageInfo } from "../cdp/browser.js";
import type { AgentRecord, AgentRegistry } from "./agent-registry.js";
import { formatTarget, parseTarget } from "./target-id.js";

/** Who is calling: the base client ids their token reaches, or null for every client. */
export interface Caller {
  scope: ReadonlySet<string> | null;
}

/** A tab as tabs.list shows it. */
export interface TabEntry {
  target: string;
  clientId: string;
  tabId: string;
  url: string;
  title: string;
  agent: null | "connected" | "ready";
}

/** A client as clients.list shows it. */
export interface ClientEntry {
  clientId: string;
  agent: null | { state: "connected" | "ready"; connectedAt: number };
  tabs: string[];
}

/**
 * The registry of clients keyed by `clientId:tabId`: the one place that answers which tab a target names and
 * whether a caller may see it. A tab nobody claimed belongs to the default client. Emits `tabOpened` (TabEntry) and
 * `tabClosed` (TabEntry, reason) with the tab's owner.
 */
export class ClientManager extends EventEmitter {
  #browser: Browser;
  #agents: AgentRegistry;
  #defaultClientId: string;
  #owners = new Map<string, string>();
  #opening = 0;
  #unannounced: PageInfo[] = [];

  constructor(browser: Browser, agents: AgentRegistry, defaultClientId: string) {
    super();
    this.setMaxListeners(0);
    this.#browser = browser;
    this.#agents = agents;
    // An agent that registers from a tab makes its base id the tab's owner.
    agents.on("connected", (agent: AgentRecord) => {
      if (browser.page(agent.tabId)) this.claim(agent.tabId, agent.baseId);
    });
    this.#defaultClientId = defaultClientId;
    browser.on("pageCreated", (page: PageInfo) => this.#announce(page));
    browser.on("pageCrashed", (tabId: string) => this.#closed(tabId, "crashed"));
    browser.on("pageDestroyed", (tabId: string, reason: "closed" | "detached") => this.#closed(tabId, reason));
    browser.on("disconnected", () => this.#owners.clear());
  }

  /**
   * Holds back `tabOpened` while a tab is being opened for a client, so it is announced with its owner; returns
   * the release.
   */
  beginOpen(): () => void {
    this.#opening++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#opening > 0) return;
      for (const page of this.#unannounced.splice(0)) if (this.#browser.page(page.tabId)) this.#announce(page);
    };
  }

  /** The base client that owns a tab. */
  ownerOf(tabId: string): string {
    return this.#owners.get(tabId) ?? this.#defaultClientId;
  }

  /** Gives a tab to a client (tabs.open with clientId, or an agent registering from it). */
  claim(tabId: string, clientId: string): void {
    if (clientId === this.#defaultClientId) this.#owners.delete(tabId);
    else this.#owners.set(tabId, clientId);
  }

  /** Whether the caller's token reaches this base client. */
  canSee(caller: Caller, clientId: string): boolean {
    return caller.scope === null || caller.scope.has(clientId);
  }

  /** The page tabs the caller may see, optionally of one client; BROWSER_UNAVAILABLE while Chrome is away. */
  tabs(caller: Caller, clientId?: string): TabEntry[] {
    this.#browser.connection();
    const entries: TabEntry[] = [];
    for (const page of this.#browser.pages()) {
      const owner = this.ownerOf(page.tabId);
      if ((clientId === undefined || owner === clientId) && this.canSee(caller, owner)) entries.push(this.#entry(owner, page));
    }
    return entries;
  }

  /** The clients the caller may see, each with its tabs and its agent (the readiest of its connections). */
  clients(caller: Caller): ClientEntry[] {
    const byClient = new Map<string, ClientEntry>();
    const client = (clientId: string): ClientEntry => {
      let entry = byClient.get(clientId);
      if (!entry) byClient.set(clientId, (entry = { clientId, agent: null, tabs: [] }));
      return entry;
    };
    for (const tab of this.tabs(caller)) client(tab.clientId).tabs.push(tab.target);
    for (const agent of this.#agents.all()) {
      if (!this.canSee(caller, agent.baseId)) continue;
      const entry = client(agent.baseId);
      if (entry.agent === null || (entry.agent.state === "connected" && agent.state === "ready")) {
        entry.agent = { state: agent.state, connectedAt: agent.connectedAt };
      }
    }
    return [...byClient.values()];
  }

  /** The tab a target names, if it exists, belongs to that client and the caller may see it; else TARGET_NOT_FOUND. */
  resolve(target: string, caller: Caller): TabEntry {
    const { clientId, tabId } = parseTarget(target);
    this.#browser.connection();
    const page = this.#browser.page(tabId);
    if (!page || this.ownerOf(tabId) !== clientId || !this.canSee(caller, clientId)) {
      throw new HubError("TARGET_NOT_FOUND", `no tab ${target}; list tabs with tabs.list`);
    }
    return this.#entry(clientId, page);
  }

  #announce(page: PageInfo): void {
    if (this.#opening > 0) this.#unannounced.push(page);
    else this.emit("tabOpened", this.#entry(this.ownerOf(page.tabId), page));
  }

  /** Announces a tab that went (with the owner it had), then forgets its owner. */
  #closed(tabId: string, reason: string): void {
    const page = this.#browser.page(tabId) ?? { tabId, url: "", title: "" };
    this.emit("tabClosed", this.#entry(this.ownerOf(tabId), page), reason);
    this.#owners.delete(tabId);
  }

  #entry(clientId: string, page: PageInfo): TabEntry {
    const target = formatTarget(clientId, page.tabId);
    return { target, clientId, tabId: page.tabId, url: page.url, title: page.title, agent: this.#agents.get(target)?.state ?? null };
  }
}
