import { EventEmitter } from "node:events";
import type { Protocol } from "devtools-protocol";
import { raceSignal } from "../budget.js";
import type { Config } from "../config.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import { discoverBrowserWsUrl } from "./browser-discovery.js";
import { launchChrome, resolveChromePath, type LaunchedChrome } from "./chrome-launcher.js";
import { CdpConnection } from "./connection.js";
import { protocolFailureOf } from "./protocol-errors.js";

/** What the hub knows of a page target without asking Chrome. */
export interface PageInfo {
  tabId: string;
  url: string;
  title: string;
  /** The browser context it lives in (a client's own, or Chrome's default one). */
  browserContextId?: string;
  /** The page that opened it (a popup), if any. */
  openerId?: string;
}

const RESTART_DELAY_MIN_MS = 250;
const RESTART_DELAY_MAX_MS = 5_000;
const CLOSE_RETRY_MS = 500;
// A crashed page is closed by the hub; the close is not worth waiting on longer than this.
const CLOSE_CRASHED_MS = 5_000;

/**
 * What Browser tells its listeners: the connection came or went, a page appeared, changed its URL or title, went or
 * crashed, a session detached.
 */
export interface BrowserEvents {
  connected: [];
  disconnected: [];
  pageCreated: [page: PageInfo];
  pageChanged: [page: PageInfo];
  pageDestroyed: [tabId: string, reason: "closed" | "detached"];
  pageCrashed: [tabId: string];
  sessionDetached: [sessionId: string];
}

/**
 * The browser behind the hub: an embedded headless Chromium or the Chrome at CDP_URL, reached over one
 * browser-level connection that is re-established (and the embedded Chrome restarted) whenever it is lost.
 */
export class Browser extends EventEmitter<BrowserEvents> {
  #config: Config;
  #connection: CdpConnection | null = null;
  #chrome: LaunchedChrome | null = null;
  #pages = new Map<string, PageInfo>();
  /** Crashed pages the hub has dropped and is closing: Chrome's later news of them is ignored. */
  #crashed = new Set<string>();
  #stopping = false;
  #restartDelayMs = RESTART_DELAY_MIN_MS;
  #restartTimer: NodeJS.Timeout | null = null;
  #restarts = 0;

  constructor(config: Config) {
    super();
    this.setMaxListeners(0);
    this.#config = config;
  }

  /** Connects for the first time; a missing Chrome binary fails here with the command that installs it. */
  async start(): Promise<void> {
    if (!this.#config.cdpUrl) resolveChromePath(this.#config.chromePath);
    await this.#connect();
  }

  /** Whether the browser-level connection is up. */
  get isUp(): boolean {
    return this.#connection !== null && !this.#connection.isClosed;
  }

  /** How many times the connection was re-established after a loss. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The embedded Chrome's process id, or null when the hub uses CDP_URL. */
  get pid(): number | null {
    return this.#chrome?.process.pid ?? null;
  }

  /** The live connection; BROWSER_UNAVAILABLE while it is being re-established. */
  connection(): CdpConnection {
    if (!this.#connection || this.#connection.isClosed) {
      throw new HubError("BROWSER_UNAVAILABLE", "Chrome is not reachable; the hub is reconnecting, retry shortly");
    }
    return this.#connection;
  }

  /** The page targets Chrome has reported. */
  pages(): PageInfo[] {
    return [...this.#pages.values()];
  }

  /** Calls `listener` with each page that goes, closed or crashed (for what the hub keeps per tab). */
  onPageGone(listener: (tabId: string) => void): void {
    this.on("pageDestroyed", (tabId) => listener(tabId));
    this.on("pageCrashed", listener);
  }

  /** One page target, if Chrome has reported it. */
  page(tabId: string): PageInfo | undefined {
    return this.#pages.get(tabId);
  }

  /**
   * Closes a page and resolves once Chrome reports it gone. Chrome drops a close that arrives while the page is
   * navigating, so the close is sent again until the page goes or `signal` ends.
   */
  async closePage(tabId: string, signal: AbortSignal): Promise<void> {
    if (!this.#pages.has(tabId)) return;
    let onGone: (gone: string) => void = () => {};
    const gone = new Promise<boolean>((resolve) => {
      onGone = (gone: string) => gone === tabId && resolve(true);
      this.on("pageDestroyed", onGone);
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      for (;;) {
        try {
          await this.connection().send("Target.closeTarget", { targetId: tabId }, { signal });
        } catch (error) {
          // A re-sent close can find the page already gone before its targetDestroyed has arrived.
          if (protocolFailureOf(error) === "no-target") return;
          throw error;
        }
        const retry = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, CLOSE_RETRY_MS, false)));
        if (await raceSignal(Promise.race([gone, retry]), signal)) return;
      }
    } finally {
      clearTimeout(timer);
      this.off("pageDestroyed", onGone);
    }
  }

  /**
   * Records what Chrome just said of a page it knows (a fresher url and title than the last targetInfoChanged). An
   * answer about a page that was destroyed meanwhile (Chrome answered Target.getTargetInfo as it closed the page) is
   * dropped: taken as news, it would list a page Chrome no longer has, for the life of the hub.
   */
  notePage(info: Protocol.Target.TargetInfo): void {
    if (this.#pages.has(info.targetId)) this.#onTargetInfo(info);
  }

  /** Records a page's new title, which Chrome does not announce (the page's own world tells the hub: runtime/page-titles.ts). */
  noteTitle(tabId: string, title: string): void {
    const known = this.#pages.get(tabId);
    if (!known || known.title === title) return;
    const page = { ...known, title };
    this.#pages.set(tabId, page);
    this.emit("pageChanged", page);
  }

  /** Closes the connection and stops the embedded Chrome. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#connection?.close();
    await this.#chrome?.kill();
    this.#chrome = null;
  }

  async #connect(): Promise<void> {
    const connection = this.#config.cdpUrl
      ? await CdpConnection.connect(await discoverBrowserWsUrl(this.#config.cdpUrl))
      : await this.#launch();
    connection.on("Target.targetCreated", (event) => this.#onTargetInfo(event.targetInfo));
    connection.on("Target.targetInfoChanged", (event) => this.#onTargetInfo(event.targetInfo));
    connection.on("Target.targetDestroyed", (event) => this.#dropPage(event.targetId, "closed"));
    connection.on("Target.targetCrashed", (event) => this.#onCrashed(connection, event.targetId));
    connection.on("Target.detachedFromTarget", (event) => this.emit("sessionDetached", event.sessionId));
    connection.once("disconnected", () => this.#onDisconnected(connection));
    this.#connection = connection;
    await connection.send("Target.setDiscoverTargets", { discover: true });
    this.#restartDelayMs = RESTART_DELAY_MIN_MS;
    log.info("connected to Chrome", { embedded: this.#chrome !== null, pages: this.#pages.size });
    this.emit("connected");
  }

  async #launch(): Promise<CdpConnection> {
    const chrome = await launchChrome(resolveChromePath(this.#config.chromePath), this.#config.chromeArgs);
    this.#chrome = chrome;
    chrome.process.once("exit", (code, signal) => {
      if (this.#stopping) log.info("embedded Chrome stopped", { code, signal });
      else log.warn("embedded Chrome exited", { code, signal });
      if (this.#chrome === chrome) this.#connection?.close();
    });
    return chrome.connection;
  }

  #onTargetInfo(info: Protocol.Target.TargetInfo): void {
    if (info.type !== "page" || this.#crashed.has(info.targetId)) return;
    const known = this.#pages.get(info.targetId);
    const page: PageInfo = {
      tabId: info.targetId,
      url: info.url,
      title: info.title,
      browserContextId: info.browserContextId,
      openerId: info.openerId,
    };
    this.#pages.set(info.targetId, page);
    if (!known) this.emit("pageCreated", page);
    else if (known.url !== page.url || known.title !== page.title) this.emit("pageChanged", page);
  }

  /** Gives up a page whose renderer no longer answers, as if it had crashed (see #onCrashed). */
  giveUpPage(tabId: string, why: string): void {
    if (!this.#connection || !this.#pages.has(tabId)) return;
    log.warn("closing a tab that no longer answers", { tabId, why });
    this.#onCrashed(this.#connection, tabId);
  }

  /**
   * A crashed page is of no use until reloaded, so the hub says so (`pageCrashed`, with the page still listed for
   * its listeners), forgets it at once, so calls to it fail fast, and closes it.
   */
  #onCrashed(connection: CdpConnection, tabId: string): void {
    if (!this.#pages.has(tabId)) return;
    this.emit("pageCrashed", tabId);
    this.#pages.delete(tabId);
    this.#crashed.add(tabId);
    connection.send("Target.closeTarget", { targetId: tabId }, { timeoutMs: CLOSE_CRASHED_MS }).catch((error: Error) => {
      log.warn("could not close a crashed tab", { tabId, error: error.message });
    });
  }

  #dropPage(tabId: string, reason: "closed" | "detached"): void {
    this.#crashed.delete(tabId);
    if (!this.#pages.delete(tabId)) return;
    this.emit("pageDestroyed", tabId, reason);
  }

  #onDisconnected(connection: CdpConnection): void {
    if (this.#connection !== connection) return;
    this.#connection = null;
    for (const tabId of [...this.#pages.keys()]) this.#dropPage(tabId, "detached");
    this.#crashed.clear();
    this.emit("disconnected");
    if (this.#stopping) return;
    log.warn("lost Chrome; reconnecting", { inMs: this.#restartDelayMs });
    this.#scheduleRestart();
  }

  #scheduleRestart(): void {
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      void this.#restart();
    }, this.#restartDelayMs);
    this.#restartDelayMs = Math.min(this.#restartDelayMs * 2, RESTART_DELAY_MAX_MS);
  }

  async #restart(): Promise<void> {
    if (this.#stopping) return;
    const old = this.#chrome;
    this.#chrome = null;
    await old?.kill();
    try {
      await this.#connect();
      this.#restarts++;
      if (this.#stopping) await this.stop();
    } catch (error) {
      log.error("cannot reach Chrome", { error: (error as Error).message });
      this.#connection?.close();
      if (!this.#stopping && !this.#restartTimer) this.#scheduleRestart();
    }
  }
}
