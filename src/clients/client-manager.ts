import { EventEmitter } from "node:events";
import { HubError } from "../errors.js";
import type { Browser, PageInfo } from "../cdp/browser.js";
import type { Client, Notifications, Tab } from "../protocol/types.js";
import type { AgentRecord, AgentRegistry } from "../agents/agent-registry.js";
import { ClientContexts, type ContextProxies, type ContextRecord } from "./client-contexts.js";
import { ClientUsers } from "./client-users.js";
import { TabActivity } from "./tab-activity.js";
import { TAB_UPDATE_INTERVAL_MS, TabUpdates } from "./tab-updates.js";
import { formatTarget, parseTarget } from "../target-id.js";

/** Who is calling: the base client ids their token reaches, or null for every client. */
export interface Caller {
  scope: ReadonlySet<string> | null;
  /** Aborts when the caller's connection closes: a connection that names a client's tab uses the client until then. */
  closed?: AbortSignal;
}

/** A tab as tabs.list shows it. */
export type TabEntry = Tab;

/** A client as clients.list shows it. */
export type ClientEntry = Client;

/** Why a tab went, as tab.closed says. */
export type TabClosedReason = Notifications["tab.closed"]["reason"];

/**
 * What ClientManager tells its listeners: a tab appeared, changed its URL or title (at most once per tab every
 * TAB_UPDATE_INTERVAL_MS, with the latest values), or went, with its owner.
 */
export interface ClientManagerEvents {
  tabOpened: [entry: TabEntry];
  tabUpdated: [entry: TabEntry];
  tabClosed: [entry: TabEntry, reason: TabClosedReason];
}

/** How clients are kept: the client of unclaimed tabs, and how long an idle client's browser context lives. */
export interface ClientManagerOptions {
  defaultClientId: string;
  clientIdleMs: number;
  /** Where the contexts are written down to outlive the hub (CDP_URL); none: they go with the connection. */
  record?: ContextRecord;
  /** The egress proxies of policed clients' contexts. */
  proxies?: ContextProxies;
}

/**
 * The registry of clients keyed by `clientId:tabId`: the one place that answers which tab a target names, who owns
 * it and whether a caller may see it. A tab in a client's browser context belongs to that client; a tab of Chrome's
 * default context belongs to the default client, unless an agent registered from it (while it stays) or it is a
 * popup of such a tab.
 */
export class ClientManager extends EventEmitter<ClientManagerEvents> {
  /** Every client's browser context. */
  readonly contexts: ClientContexts;
  /** Which tab came to the front last (the one a caller without a target means). */
  readonly activity = new TabActivity();
  /** The connections acting for each client now (CLIENT_ABANDON_MS spares a client while one does). */
  readonly users = new ClientUsers();
  #browser: Browser;
  #agents: AgentRegistry;
  #defaultClientId: string;
  /** The owner of every page that is not the default client's. */
  #owners = new Map<string, string>();
  /** Default-context tabs an agent claimed: tabId -> the agent's composite id. */
  #agentClaims = new Map<string, string>();
  /** Restored tabs of persistent clients: the target they had -> Chrome's id now, and back. */
  #aliases = new Map<string, string>();
  #aliasOf = new Map<string, string>();
  /** Browser contexts a persistent client is being put back into, with their pages held back until it is done. */
  #restoring = new Map<string, Set<string>>();
  /** Tabs the hub is closing for a reason of its own (`abandoned`): their tab.closed says it. */
  #closeReasons = new Map<string, TabClosedReason>();
  #updates = new TabUpdates({ intervalMs: TAB_UPDATE_INTERVAL_MS, send: (tabId) => this.#updated(tabId) });

  constructor(browser: Browser, agents: AgentRegistry, options: ClientManagerOptions) {
    super();
    this.setMaxListeners(0);
    this.#browser = browser;
    this.#agents = agents;
    this.#defaultClientId = options.defaultClientId;
    this.contexts = new ClientContexts(browser, {
      defaultClientId: options.defaultClientId,
      idleMs: options.clientIdleMs,
      isBusy: (clientId) => this.#isBusy(clientId),
      ...(options.record ? { record: options.record } : {}),
      ...(options.proxies ? { proxies: options.proxies } : {}),
    });
    agents.on("connected", (agent) => this.#onAgentConnected(agent));
    agents.on("disconnected", (agent) => this.#onAgentDisconnected(agent));
    browser.on("pageCreated", (page) => this.#opened(page));
    browser.on("pageChanged", (page) => this.#updates.changed(page.tabId, page));
    browser.on("pageCrashed", (tabId) => this.#closed(tabId, "crashed"));
    browser.on("pageDestroyed", (tabId, reason) => this.#closed(tabId, reason));
    this.contexts.on("closed", (clientId) => this.users.forget(clientId));
    browser.on("disconnected", () => {
      this.#closeReasons.clear();
      this.#updates.clear();
      this.activity.clear();
      this.#owners.clear();
      this.#agentClaims.clear();
      this.#aliases.clear();
      this.#aliasOf.clear();
    });
  }

  /** The client that keeps Chrome's default context (DEFAULT_CLIENT_ID). */
  get defaultClientId(): string {
    return this.#defaultClientId;
  }

  /** The base client that owns a tab. */
  ownerOf(tabId: string): string {
    return this.#owners.get(tabId) ?? this.#defaultClientId;
  }

  /** How many tabs a client has open. */
  tabCount(clientId: string): number {
    let count = 0;
    for (const page of this.#browser.pages()) if (this.ownerOf(page.tabId) === clientId) count++;
    return count;
  }

  /**
   * Why an agent may not register as `baseId:tabId`, or null when it may: a tab of another client is never taken;
   * an unclaimed tab of the default client only by a key that reaches every client id (AUTH_KEY, single tenant).
   */
  refusalOfAgent(baseId: string, tabId: string, keyScope: ReadonlySet<string> | null): string | null {
    const page = this.#browser.page(tabId);
    if (!page) return null;
    const owner = this.ownerOf(tabId);
    if (owner === baseId) return null;
    const claimable = owner === this.#defaultClientId && this.contexts.clientOf(page.browserContextId) === undefined;
    if (claimable && keyScope === null) return null;
    return `tab ${tabId} is not a tab of client ${baseId}; an agent registers only from its own client's tabs`;
  }

  /** Lets a tab reopened for a persistent client answer to the target it had (`clientId:oldTabId`). */
  alias(clientId: string, oldTabId: string, tabId: string): void {
    if (oldTabId === tabId) return;
    this.#aliases.set(formatTarget(clientId, oldTabId), tabId);
    this.#aliasOf.set(tabId, oldTabId);
  }

  /**
   * Holds back the pages of a context a persistent client is put back into: unlisted and unannounced until the
   * answered function is called, when the restored tabs (aliased by then) are announced and the hub's own passing
   * pages (closed by then) never were. No listing shows a restored tab under Chrome's new id, or half the tabs.
   */
  holdWhileRestoring(browserContextId: string): () => void {
    const held = new Set<string>();
    this.#restoring.set(browserContextId, held);
    return () => {
      if (this.#restoring.get(browserContextId) !== held) return;
      this.#restoring.delete(browserContextId);
      for (const tabId of held) {
        const page = this.#browser.page(tabId);
        if (page) this.emit("tabOpened", this.#entry(this.ownerOf(tabId), page));
      }
    };
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
      if (this.#heldBack(page)) continue;
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
    const { clientId } = parseTarget(target);
    this.#browser.connection();
    const tabId = this.tabIdOf(target, caller);
    const page = tabId === undefined ? undefined : this.#browser.page(tabId);
    if (!page) throw new HubError("TARGET_NOT_FOUND", `no tab ${target}; list tabs with tabs.list`);
    this.users.use(clientId, caller.closed);
    return this.#entry(clientId, page);
  }

  /** Closes a tab for a reason of the hub's own, which its tab.closed carries; resolves once Chrome reports it gone. */
  async closeTab(tabId: string, reason: TabClosedReason, signal: AbortSignal): Promise<void> {
    this.#closeReasons.set(tabId, reason);
    try {
      await this.#browser.closePage(tabId, signal);
    } finally {
      this.#closeReasons.delete(tabId);
    }
  }

  /** Chrome's id of the tab a well-formed target names, if it exists, belongs to that client and the caller may see it. */
  tabIdOf(target: string, caller: Caller): string | undefined {
    const { clientId, tabId: named } = parseTarget(target);
    const tabId = this.#aliases.get(formatTarget(clientId, named)) ?? named;
    if (this.#browser.page(tabId) === undefined || this.ownerOf(tabId) !== clientId || !this.canSee(caller, clientId)) {
      return undefined;
    }
    return tabId;
  }

  /** An open tab as tabs.list shows it, by Chrome's id; undefined once it is gone. */
  entryOf(tabId: string): TabEntry | undefined {
    const page = this.#browser.page(tabId);
    return page ? this.#entry(this.ownerOf(tabId), page) : undefined;
  }

  /** A new page's owner: its context's client, else its opener's (a popup of a claimed tab), else the default client. */
  #opened(page: PageInfo): void {
    const opener = page.openerId;
    const owner = this.contexts.clientOf(page.browserContextId) ?? (opener === undefined ? undefined : this.#owners.get(opener));
    if (owner !== undefined && owner !== this.#defaultClientId) this.#owners.set(page.tabId, owner);
    // A popup of a tab an agent claimed is given back with it.
    const claim = opener === undefined ? undefined : this.#agentClaims.get(opener);
    if (claim !== undefined) this.#agentClaims.set(page.tabId, claim);
    const clientId = this.ownerOf(page.tabId);
    this.contexts.review(clientId);
    this.#updates.opened(page.tabId, page);
    const held = page.browserContextId === undefined ? undefined : this.#restoring.get(page.browserContextId);
    if (held) held.add(page.tabId);
    else this.emit("tabOpened", this.#entry(clientId, page));
  }

  #heldBack(page: PageInfo): boolean {
    return page.browserContextId !== undefined && this.#restoring.get(page.browserContextId)?.has(page.tabId) === true;
  }

  #updated(tabId: string): void {
    const page = this.#browser.page(tabId);
    if (page) this.emit("tabUpdated", this.#entry(this.ownerOf(tabId), page));
  }

  /** Announces a tab that went (with the owner it had), then forgets its owner. */
  #closed(tabId: string, reason: TabClosedReason): void {
    const page = this.#browser.page(tabId) ?? { tabId, url: "", title: "" };
    const owner = this.ownerOf(tabId);
    this.#updates.forget(tabId);
    // A page held back while its client was restored was never announced, so its end is not either.
    let wasHeld = false;
    for (const held of this.#restoring.values()) wasHeld = held.delete(tabId) || wasHeld;
    const told = reason === "closed" ? (this.#closeReasons.get(tabId) ?? reason) : reason;
    if (!wasHeld) this.emit("tabClosed", this.#entry(owner, page), told);
    this.#owners.delete(tabId);
    this.#agentClaims.delete(tabId);
    const old = this.#aliasOf.get(tabId);
    if (old !== undefined) {
      this.#aliasOf.delete(tabId);
      this.#aliases.delete(formatTarget(owner, old));
    }
    this.activity.forget(tabId);
    this.contexts.review(owner);
  }

  // An agent that registers from an unclaimed default-context tab owns it while it stays (refusalOfAgent allowed it).
  #onAgentConnected(agent: AgentRecord): void {
    const page = this.#browser.page(agent.tabId);
    if (
      page &&
      this.ownerOf(agent.tabId) === this.#defaultClientId &&
      agent.baseId !== this.#defaultClientId &&
      this.contexts.clientOf(page.browserContextId) === undefined
    ) {
      this.#owners.set(agent.tabId, agent.baseId);
      this.#agentClaims.set(agent.tabId, agent.clientId);
    }
    this.contexts.review(agent.baseId);
  }

  // A newer connection of the same composite id keeps the claim; otherwise the tabs go back to the default client.
  #onAgentDisconnected(agent: AgentRecord): void {
    if (this.#agents.get(agent.clientId) === undefined) {
      for (const [tabId, claimant] of [...this.#agentClaims]) {
        if (claimant !== agent.clientId) continue;
        this.#agentClaims.delete(tabId);
        this.#owners.delete(tabId);
      }
    }
    this.contexts.review(agent.baseId);
  }

  #isBusy(clientId: string): boolean {
    return this.tabCount(clientId) > 0 || this.#agents.all().some((agent) => agent.baseId === clientId);
  }

  #entry(clientId: string, page: PageInfo): TabEntry {
    const target = formatTarget(clientId, this.#aliasOf.get(page.tabId) ?? page.tabId);
    const { tabId, url, title } = page;
    const agent = this.#agents.get(target);
    const entry: TabEntry = { target, clientId, tabId, url, title, agent: agent?.state ?? null, activatedAt: this.activity.of(tabId) };
    if (agent?.paused) entry.agentPaused = true;
    if (agent?.task) entry.agentTask = agent.task;
    return entry;
  }
}
