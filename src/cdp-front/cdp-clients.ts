import { randomBytes } from "node:crypto";
import type { CdpConnection } from "../cdp/connection.js";
import type { HubServices } from "../services.js";
import { CdpFailure, NO_CONTEXT } from "./cdp-frames.js";

/** A client of one /cdp connection: its id, its browser context (undefined: Chrome's default one), and its hold on it. */
interface HeldClient {
  clientId: string;
  contextId: Promise<string | undefined>;
  release: () => void;
  /** Its place in the token's quota of clients of their own (the main client of a named or scoped connection has none). */
  quota: (() => void) | null;
  /** Tabs this connection asked Chrome for in it, not yet counted as the client's (MAX_TABS_PER_CLIENT counts them). */
  creating: number;
}

/** What the connection's clients need: the hub, the main client, and the token's quota of clients of their own. */
export interface CdpClientsOptions {
  services: HubServices;
  connection: CdpConnection;
  clientId: string;
  ephemeral: boolean;
  /** A place in the token's MAX_EPHEMERAL_CLIENTS_PER_TOKEN, or null when it holds them all. */
  takePlace: () => (() => void) | null;
}

// Options of Target.createBrowserContext that reach past the context: a proxy of the caller's choosing is a way into
// the hub's own network (issue: an egress policy of the hub's is the only proxy a context gets).
const REFUSED_CONTEXT_OPTIONS = ["proxyServer", "proxyBypassList", "originsWithUniversalNetworkAccess"];
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * The clients a /cdp connection acts for: its main one (whose context is the caller's default context) and one per
 * `Target.createBrowserContext` (Playwright's `browser.newContext()`), each a new client of its own with a context of
 * its own, within the token's quota of such clients, ended with its context (or the connection).
 */
export class CdpClients {
  #options: CdpClientsOptions;
  #main: HeldClient;
  /** The contexts the connection made, by Chrome's id. */
  #made = new Map<string, HeldClient>();
  /** Whether the connection asked for downloads to be refused ("deny"): every client of it, made before or after. */
  #refusing = false;

  constructor(options: CdpClientsOptions) {
    this.#options = options;
    this.#main = this.#hold(options.clientId, null);
  }

  /** Whether a client is one this connection acts for. */
  owns(clientId: string): boolean {
    if (clientId === this.#main.clientId) return true;
    for (const held of this.#made.values()) if (held.clientId === clientId) return true;
    return false;
  }

  /** Has every client of the connection refuse downloads in Chrome (its "deny"), or stops asking for it. */
  async refuseDownloads(refused: boolean): Promise<void> {
    if (refused === this.#refusing) return;
    this.#refusing = refused;
    await Promise.all([this.#main, ...this.#made.values()].map((held) => this.#refuse(held, refused)));
  }

  /** The contexts the connection made (Target.getBrowserContexts; the main one is the default and not listed). */
  madeContextIds(): string[] {
    return [...this.#made.keys()];
  }

  /** The context id a command names when it is one of the connection's, else the main client's; undefined: Chrome's default. */
  async contextOf(named: unknown): Promise<string | undefined> {
    if (typeof named === "string" && this.#made.has(named)) return named;
    return this.#main.contextId;
  }

  /** Makes a new client with a context of its own: Target.createBrowserContext. */
  async create(params: Record<string, unknown>): Promise<{ browserContextId: string }> {
    const option = REFUSED_CONTEXT_OPTIONS.find((name) => params[name] !== undefined);
    if (option !== undefined)
      throw new CdpFailure(-32000, `tabwire's /cdp refuses ${option}: a context's connections go where the hub's network lets them`);
    const quota = this.#options.takePlace();
    if (quota === null)
      throw new CdpFailure(
        -32000,
        `this token holds ${this.#options.services.config.maxEphemeralClientsPerToken} clients of their own (MAX_EPHEMERAL_CLIENTS_PER_TOKEN); dispose of a context first`,
      );
    const clientId = `cdp-${randomBytes(6).toString("hex")}`;
    // A policed client's new context is held to the same policies: a context of its own is no way around them.
    this.#options.services.egress.inherit(clientId, this.#options.clientId);
    const held = this.#hold(clientId, quota);
    try {
      const browserContextId = (await held.contextId) as string;
      this.#made.set(browserContextId, held);
      if (this.#refusing) await this.#refuse(held, true);
      return { browserContextId };
    } catch (error) {
      this.#end(held);
      throw error;
    }
  }

  /** Ends a context the connection made, with its client and tabs: Target.disposeBrowserContext. */
  async dispose(browserContextId: unknown): Promise<object> {
    const held = typeof browserContextId === "string" ? this.#made.get(browserContextId) : undefined;
    if (!held) throw NO_CONTEXT();
    this.#made.delete(browserContextId as string);
    await this.#closeTabs(held.clientId);
    this.#end(held);
    return {};
  }

  /**
   * Runs a Target.createTarget in the context it names (one of the connection's; none: the main client's), held to
   * MAX_TABS_PER_CLIENT with the tabs still being made.
   */
  async createTarget<T>(named: unknown, create: (contextId: string | undefined) => Promise<T>): Promise<T> {
    const held = await this.#heldFor(named);
    const contextId = await held.contextId;
    const { clients, config } = this.#options.services;
    const open = clients.tabCount(held.clientId) + held.creating;
    if (open >= config.maxTabsPerClient)
      throw new CdpFailure(
        -32000,
        `client ${held.clientId} has ${open} tabs open (MAX_TABS_PER_CLIENT=${config.maxTabsPerClient}); close some first`,
      );
    held.creating++;
    try {
      return await create(contextId);
    } finally {
      held.creating--;
    }
  }

  /** Ends everything the connection holds: the contexts it made go with their tabs, an ephemeral main client too. */
  async disposeAll(): Promise<void> {
    const made = [...this.#made.values()];
    this.#made.clear();
    const ending = this.#options.ephemeral ? [this.#main, ...made] : made;
    await Promise.all(ending.map((held) => this.#closeTabs(held.clientId)));
    for (const held of made) this.#end(held);
    if (this.#options.ephemeral) this.#end(this.#main);
    else this.#main.release();
  }

  /** The client whose context a command names: one the connection made, its main one's (or none: the main one). */
  async #heldFor(named: unknown): Promise<HeldClient> {
    if (named === undefined) return this.#main;
    const made = typeof named === "string" ? this.#made.get(named) : undefined;
    if (made) return made;
    if (named === (await this.#main.contextId)) return this.#main;
    throw NO_CONTEXT();
  }

  #hold(clientId: string, quota: (() => void) | null): HeldClient {
    const { clients, egress } = this.#options.services;
    const kept = clients.contexts.keep(clientId);
    // A context another instance of a cluster holds the policy of is not used here, even one made before the policy.
    const contextId = egress.checkHome(clientId).then(() => kept.contextId);
    // A context that cannot be made fails the commands that need it, not the process.
    contextId.catch(() => undefined);
    return { clientId, contextId, release: kept.release, quota, creating: 0 };
  }

  /** Sets a client's context to refuse downloads, or back, once it exists (the hub's ClientDownloads keeps the count). */
  async #refuse(held: HeldClient, refused: boolean): Promise<void> {
    await held.contextId.catch(() => undefined);
    await this.#options.services.downloads.refuse(held.clientId, refused);
  }

  #end(held: HeldClient): void {
    if (this.#refusing) void this.#refuse(held, false);
    held.release();
    this.#options.services.clients.contexts.end(held.clientId);
    held.quota?.();
  }

  /** Closes a client's tabs and waits (CLOSE_TIMEOUT_MS at most) until they are gone, so its context can go at once. */
  async #closeTabs(clientId: string): Promise<void> {
    const { services, connection } = this.#options;
    if (connection.isClosed) return;
    const tabs = services.browser.pages().filter((page) => services.clients.ownerOf(page.tabId) === clientId);
    const signal = AbortSignal.timeout(CLOSE_TIMEOUT_MS);
    await Promise.all(tabs.map((tab) => services.browser.closePage(tab.tabId, signal).catch(() => undefined)));
  }
}
