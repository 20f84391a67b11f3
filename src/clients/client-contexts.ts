import { EventEmitter } from "node:events";
import type { Budget } from "../budget.js";
import type { Browser } from "../cdp/browser.js";
import { CDP_COMMAND_TIMEOUT_MS } from "../cdp/callback-registry.js";
import { protocolFailureOf } from "../cdp/protocol-errors.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";

/**
 * Why a client's context went: it was idle for CLIENT_IDLE_MS, abandoned (CLIENT_ABANDON_MS: nothing used it, its tabs
 * were closed), or Chrome (and every context with it) was lost.
 */
export type ClientClosedReason = "idle" | "abandoned" | "browser";

/** What ClientContexts tells its listeners. */
export interface ClientContextEvents {
  opened: [clientId: string];
  closed: [clientId: string, reason: ClientClosedReason];
}

/** How contexts are kept: which client keeps Chrome's default one, how long an idle one lives, what counts as busy. */
export interface ClientContextsOptions {
  defaultClientId: string;
  idleMs: number;
  /** Whether a client has a tab or an agent now (then its context is kept). */
  isBusy(clientId: string): boolean;
  /** Where the contexts are written down, so that the next hub on the same Chrome (CDP_URL) adopts them; none: they die with the connection. */
  record?: ContextRecord;
  /** The egress proxies of policed clients: a context is made behind its client's, or not at all. */
  proxies?: ContextProxies;
}

/** Where a policed client's context sends its traffic: a proxy opened before the context is made, closed after it went. */
export interface ContextProxies {
  /** The proxy's URL (null: the client has no policy); rejects when it cannot be put in place. */
  open(clientId: string): Promise<string | null>;
  close(clientId: string): void;
}

/** What a hub that leaves its contexts in Chrome keeps of them: each client's context id, written before it is used. */
export interface ContextRecord {
  /** Resolves once the context is written down (a tab opened in it then outlives a killed hub). */
  made(clientId: string, browserContextId: string): Promise<void>;
  /** The context was disposed. */
  disposed(clientId: string): void;
}

/** One client's browser context: its own cookies, storage, cache, permissions and service workers. */
interface ClientContext {
  clientId: string;
  /** Chrome's id once made; null while Target.createBrowserContext runs. */
  id: string | null;
  making: Promise<string>;
  /** Calls that are opening a tab in it now: it is not disposed under them. */
  holds: number;
  idleTimer: NodeJS.Timeout | null;
}

const DISPOSE_TIMEOUT_MS = 5_000;

/**
 * A Chrome browser context per base client id, made at the client's first tab and disposed once it has had no tab
 * and no agent for CLIENT_IDLE_MS, so no client ever sees another's cookies or storage. The default client keeps
 * Chrome's default context. The home of a client's browser state (later: its import and export).
 */
export class ClientContexts extends EventEmitter<ClientContextEvents> {
  #browser: Browser;
  #options: ClientContextsOptions;
  #byClient = new Map<string, ClientContext>();
  #byContextId = new Map<string, string>();

  constructor(browser: Browser, options: ClientContextsOptions) {
    super();
    this.setMaxListeners(0);
    this.#browser = browser;
    this.#options = options;
    browser.on("disconnected", () => this.#forgetAll());
  }

  /**
   * The context a client's new tab opens in (undefined: Chrome's default one, for the default client), made at first
   * use and held until the call's budget ends, so it is not disposed while the tab is being opened.
   */
  async acquire(clientId: string, budget: Budget): Promise<string | undefined> {
    if (clientId === this.#options.defaultClientId) return undefined;
    const { contextId, release } = this.keep(clientId);
    budget.defer(release);
    return budget.race(contextId);
  }

  /**
   * Keeps a client's context (made now if it has none) until `release`: for a connection acting as the client with no
   * tab yet. The promise is the context's id (undefined: Chrome's default one, for the default client).
   */
  keep(clientId: string): { contextId: Promise<string | undefined>; release: () => void } {
    if (clientId === this.#options.defaultClientId) return { contextId: Promise.resolve(undefined), release: () => {} };
    const context = this.#byClient.get(clientId) ?? this.#make(clientId);
    context.holds++;
    this.#disarm(context);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      context.holds--;
      this.review(clientId);
    };
    return { contextId: context.making, release };
  }

  /**
   * Disposes a client's context now if nothing keeps it (no tab, agent or hold), rather than after CLIENT_IDLE_MS;
   * `abandoned` when the hub closed its tabs because nothing used it for CLIENT_ABANDON_MS.
   */
  end(clientId: string, reason: "idle" | "abandoned" = "idle"): void {
    const context = this.#byClient.get(clientId);
    if (context && context.id !== null) this.#dispose(context, reason);
  }

  /** Whether something holds the client's context now (a /cdp connection acting as it, a call opening a tab in it). */
  isHeld(clientId: string): boolean {
    return (this.#byClient.get(clientId)?.holds ?? 0) > 0;
  }

  /** The clients that have a context now, made or being made. */
  clientIds(): string[] {
    return [...this.#byClient.keys()];
  }

  /**
   * Where a client's pages live now, making nothing: `{}` for DEFAULT_CLIENT_ID (Chrome's default context),
   * `{ browserContextId }` once its own context is made, null while it has none.
   */
  existing(clientId: string): { browserContextId?: string } | null {
    if (clientId === this.#options.defaultClientId) return {};
    const id = this.#byClient.get(clientId)?.id;
    return id ? { browserContextId: id } : null;
  }

  /** The client a browser context belongs to, if it is one of the clients' contexts. */
  clientOf(browserContextId: string | undefined): string | undefined {
    return browserContextId === undefined ? undefined : this.#byContextId.get(browserContextId);
  }

  /**
   * Takes a context a hub before this one made in the same Chrome (CDP_URL) as the client's, unless it has one: its
   * pages are the client's from the first moment Chrome lists them. `confirm` says it is still there (then `opened`).
   */
  adopt(clientId: string, browserContextId: string): void {
    if (clientId === this.#options.defaultClientId || this.#byClient.has(clientId) || this.#byContextId.has(browserContextId)) return;
    const making = Promise.resolve(browserContextId);
    this.#byClient.set(clientId, { clientId, id: browserContextId, making, holds: 0, idleTimer: null });
    this.#byContextId.set(browserContextId, clientId);
  }

  /** Keeps the adopted contexts Chrome still has (each `opened`, and disposed once idle) and forgets the others. */
  confirm(existing: ReadonlySet<string>, adopted: ReadonlyMap<string, string>): void {
    for (const [clientId, browserContextId] of adopted) {
      const context = this.#byClient.get(clientId);
      if (context?.id !== browserContextId) continue;
      if (existing.has(browserContextId)) {
        this.emit("opened", clientId);
        this.review(clientId);
      } else {
        this.#forget(context);
        this.#options.record?.disposed(clientId);
      }
    }
  }

  /** Whether a client has a context now, made or being made (the default client never has one of its own). */
  has(clientId: string): boolean {
    return this.#byClient.has(clientId);
  }

  /** How many clients have a context now. */
  get size(): number {
    return this.#byClient.size;
  }

  /** Looks at a client again: its context is disposed CLIENT_IDLE_MS after it last had a tab, an agent or a call opening a tab. */
  review(clientId: string): void {
    const context = this.#byClient.get(clientId);
    if (!context) return;
    this.#disarm(context);
    if (context.holds > 0 || this.#options.isBusy(clientId)) return;
    context.idleTimer = setTimeout(() => this.#dispose(context), this.#options.idleMs);
    context.idleTimer.unref();
  }

  #make(clientId: string): ClientContext {
    const record = this.#options.record;
    const making = this.#create(clientId).then(async ({ browserContextId, policed }) => {
      // A policed context is never written down: it goes with this hub's connection, as its proxy goes with the hub.
      if (!policed)
        await record?.made(clientId, browserContextId).catch((error: Error) => {
          this.#disposeUnused(clientId, browserContextId);
          throw new HubError("INTERNAL_ERROR", `the hub cannot write down the client's browser context (${error.message}); retry`);
        });
      if (this.#byClient.get(clientId) !== context)
        throw new HubError("BROWSER_UNAVAILABLE", "Chrome was lost while the client's browser context was made; retry shortly");
      context.id = browserContextId;
      this.#byContextId.set(browserContextId, clientId);
      this.emit("opened", clientId);
      return browserContextId;
    });
    const context: ClientContext = { clientId, id: null, making, holds: 0, idleTimer: null };
    this.#byClient.set(clientId, context);
    // A failed make is forgotten, so the next call tries again; its callers get the error through `making`.
    making.catch((error: Error) => {
      if (this.#byClient.get(clientId) === context) this.#byClient.delete(clientId);
      this.#options.proxies?.close(clientId);
      log.warn("cannot make a client's browser context", { clientId, error: error.message });
    });
    return context;
  }

  // A policed client's context is made behind its proxy, with loopback not bypassed (Chrome's default sends
  // localhost and 127.0.0.1 direct); a context whose proxy cannot be opened is not made.
  async #create(clientId: string): Promise<{ browserContextId: string; policed: boolean }> {
    const proxyServer = await this.#options.proxies?.open(clientId);
    const { browserContextId } = await this.#browser.connection().send(
      "Target.createBrowserContext",
      {
        // A recorded context outlives the connection, for the next hub to adopt; else Chrome disposes it when the hub
        // goes. A policed one always goes: its proxy lives in this hub, and a context left pointing at a closed
        // proxy's port would send its pages to whatever listens there next.
        disposeOnDetach: !this.#options.record || Boolean(proxyServer),
        ...(proxyServer ? { proxyServer, proxyBypassList: "<-loopback>" } : {}),
      },
      { timeoutMs: CDP_COMMAND_TIMEOUT_MS },
    );
    return { browserContextId, policed: Boolean(proxyServer) };
  }

  #disarm(context: ClientContext): void {
    if (context.idleTimer) clearTimeout(context.idleTimer);
    context.idleTimer = null;
  }

  // The idle timer is cleared here, not just forgotten: a context ended at once (end()) while its timer ran was
  // disposed a second time when the timer fired, which Chrome answered "Failed to find context".
  #dispose(context: ClientContext, reason: "idle" | "abandoned" = "idle"): void {
    this.#disarm(context);
    if (this.#byClient.get(context.clientId) !== context) return;
    if (context.holds > 0 || this.#options.isBusy(context.clientId) || context.id === null) return;
    this.#forget(context);
    this.#options.record?.disposed(context.clientId);
    this.emit("closed", context.clientId, reason);
    this.#disposeUnused(context.clientId, context.id);
  }

  #disposeUnused(clientId: string, browserContextId: string): void {
    if (!this.#browser.isUp) return;
    this.#browser
      .connection()
      .send("Target.disposeBrowserContext", { browserContextId }, { timeoutMs: DISPOSE_TIMEOUT_MS })
      .catch((error: Error) => {
        // Chrome no longer has it (with CDP_URL another program may dispose it): what was asked is done, nothing to warn of.
        if (protocolFailureOf(error) === "no-browser-context") log.debug("a browser context was gone already", { clientId });
        else log.warn("cannot dispose an unused browser context", { clientId, error: error.message });
      });
  }

  #forget(context: ClientContext): void {
    this.#disarm(context);
    this.#options.proxies?.close(context.clientId);
    this.#byClient.delete(context.clientId);
    if (context.id !== null) this.#byContextId.delete(context.id);
  }

  // Chrome's contexts went with the connection: every client starts afresh.
  #forgetAll(): void {
    for (const context of [...this.#byClient.values()]) {
      this.#forget(context);
      if (context.id !== null) this.emit("closed", context.clientId, "browser");
    }
  }
}
