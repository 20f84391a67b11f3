import { Budget } from "../budget.js";
import type { Browser } from "../cdp/browser.js";
import type { SessionPool } from "../cdp/session-pool.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import { parseTarget } from "../target-id.js";
import type { OwnEgress } from "../egress-rules.js";
import type { ClientManager } from "./client-manager.js";
import { IndexedDbTooLarge } from "./client-indexed-db.js";
import { exportState, importState, type StorageState } from "./client-storage.js";
import { isSavedClient, type SavedClient, type SavedTab } from "./saved-client.js";
import { ClientRemovedError, type StateStore } from "./state-store.js";

/** What a restored tab's subscribers are told: `tab.restored`. */
export type RestoredNotice = (clientId: string, params: { target: string; clientId: string; tabId: string; url: string }) => void;

/** What keeping clients across restarts takes: the parts a client's state is read and written with, where, how much. */
export interface PersistentClientsOptions {
  clients: ClientManager;
  browser: Browser;
  pool: SessionPool;
  /** Where the states are kept (DATA_DIR files; the cluster gives its Redis store with useStore). */
  store: StateStore;
  maxBytes: number;
  intervalMs: number;
  notify: RestoredNotice;
  /** The egress a client set itself (clients.configure {policy, upstreamProxy}): saved with it, put back first. */
  egress: {
    ownOf(clientId: string): OwnEgress | undefined;
    restore(clientId: string, saved: OwnEgress): void;
  };
  /** Loads a tab's page as navigate does (the hub's runtime, which this layer does not reach). */
  loadPage(tabId: string, url: string, budget: Budget): Promise<void>;
}

// A save after a tab opened or closed waits this long, so a burst of changes is one write.
const SAVE_DEBOUNCE_MS = 1_000;
// One save (cookies, each origin's localStorage and IndexedDB) and one restore get at most this long.
const SAVE_TIMEOUT_MS = 10_000;
const RESTORE_TIMEOUT_MS = 30_000;
// Each restored tab's page gets this long to load before the next one is opened.
const RESTORE_LOAD_TIMEOUT_MS = 10_000;

interface Kept {
  timer: NodeJS.Timeout | null;
}

/**
 * Persistent clients (clients.configure {persistent: true}): each one's cookies, localStorage, IndexedDB and open tabs saved in
 * its store (DATA_DIR/persistent/<clientId>.json, or Redis in a cluster) on change, on a timer and at shutdown, and
 * put back into a new context when Chrome is connected (the hub started, or the embedded Chrome came back) or when
 * this instance of a cluster takes over a client whose instance is gone: its tabs reopen at their URLs and answer to
 * the targets they had.
 */
export class PersistentClients {
  #options: PersistentClientsOptions;
  #store: StateStore;
  #kept = new Map<string, Kept>();
  /** Clients being put back now: not saved meanwhile, so a half-restored client never overwrites its saved state. */
  #restoring = new Set<string>();
  #ticker: NodeJS.Timeout;

  constructor(options: PersistentClientsOptions) {
    this.#options = options;
    this.#store = options.store;
    for (const clientId of this.#store.keptAtStart()) this.#kept.set(clientId, { timer: null });
    const { clients, browser } = options;
    clients.on("tabOpened", (entry) => this.#saveSoon(entry.clientId));
    clients.on("tabClosed", (entry, reason) => reason === "closed" && this.#saveSoon(entry.clientId));
    clients.contexts.on("closed", (clientId, reason) => reason !== "browser" && void this.#forget(clientId));
    browser.on("connected", () => void this.#restoreAll());
    this.#ticker = setInterval(() => this.#tick(), options.intervalMs);
    this.#ticker.unref();
  }

  /** Keeps states in another store from now on (a cluster's Redis); the hub has kept no client yet. */
  useStore(store: StateStore): void {
    this.#store = store;
    for (const clientId of store.keptAtStart()) this.#kept.set(clientId, { timer: null });
  }

  /** Whether a client is persistent. */
  isPersistent(clientId: string): boolean {
    return this.#kept.has(clientId);
  }

  /** The persistent clients this hub keeps. */
  keptIds(): string[] {
    return [...this.#kept.keys()];
  }

  /** Makes a client persistent (saved now; OVERLOADED past MAX_PERSISTED_BYTES) or not (its saved state removed). */
  async configure(clientId: string, persistent: boolean, budget: Budget): Promise<number | undefined> {
    if (!persistent) {
      await this.#forget(clientId);
      return undefined;
    }
    const text = await this.#snapshot(clientId, budget);
    // Kept by another instance of the cluster: it is persistent already, and that instance saves it.
    if (!(await budget.race(this.#store.take(clientId)))) return undefined;
    const fresh = !this.#kept.has(clientId);
    if (fresh) this.#kept.set(clientId, { timer: null });
    try {
      await budget.race(this.#store.write(clientId, text));
    } catch (error) {
      if (fresh) this.release(clientId);
      throw error;
    }
    return Buffer.byteLength(text);
  }

  /**
   * Takes over a client another instance kept (it is gone; this one now holds the client's claim): its saved state
   * is put back here, as after a restart.
   */
  async adopt(clientId: string): Promise<void> {
    if (this.#kept.has(clientId)) return;
    this.#kept.set(clientId, { timer: null });
    if (this.#options.browser.isUp) await this.#restoreOne(clientId, { evenWithTabs: true });
  }

  /** Stops keeping a client another instance took over (its saved state stays, now that instance's). */
  release(clientId: string): void {
    const kept = this.#kept.get(clientId);
    if (kept?.timer) clearTimeout(kept.timer);
    this.#kept.delete(clientId);
  }

  /** Saves a persistent client now (its egress changed): the call that changed it fails when it cannot be saved. */
  async saveNow(clientId: string, budget: Budget): Promise<void> {
    if (!this.#kept.has(clientId)) return;
    const text = await this.#snapshot(clientId, budget);
    await budget.race(this.#store.write(clientId, text));
  }

  /** Saves every persistent client now (the hub is stopping). */
  async saveAll(): Promise<void> {
    clearInterval(this.#ticker);
    await Promise.all([...this.#kept.keys()].map((clientId) => this.#save(clientId)));
  }

  #checkSize(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (bytes > this.#options.maxBytes) throw this.#tooLarge(bytes, "");
  }

  #tooLarge(bytes: number, atLeast: "" | "more than "): HubError {
    const maxBytes = this.#options.maxBytes;
    const message = `the client's state takes ${atLeast}${bytes} bytes, more than MAX_PERSISTED_BYTES (${maxBytes}); close tabs or clear storage first`;
    return new HubError("OVERLOADED", message, { persistedBytes: bytes, maxBytes });
  }

  /** The client's state as it is saved; OVERLOADED past MAX_PERSISTED_BYTES. */
  async #snapshot(clientId: string, budget: Budget): Promise<string> {
    // An origin's IndexedDB is read no further than the whole state may go: past it the state cannot be saved anyway.
    const indexedDb = { maxBytes: this.#options.maxBytes };
    const state: StorageState = await exportState(this.#options, { clientId, indexedDb }, budget).catch((error: unknown) => {
      throw error instanceof IndexedDbTooLarge ? this.#tooLarge(error.bytes, "more than ") : error;
    });
    const tabs: SavedTab[] = this.#options.clients
      .tabs({ scope: null }, clientId)
      .map((tab) => ({ tabId: parseTarget(tab.target).tabId, url: tab.url, title: tab.title }));
    const egress = this.#options.egress.ownOf(clientId);
    const saved: SavedClient = { version: 1, clientId, savedAt: Date.now(), state, tabs, ...(egress ? { egress } : {}) };
    const text = JSON.stringify(saved);
    this.#checkSize(text);
    return text;
  }

  #saveSoon(clientId: string): void {
    const kept = this.#kept.get(clientId);
    if (!kept || kept.timer) return;
    kept.timer = setTimeout(() => {
      kept.timer = null;
      void this.#save(clientId);
    }, SAVE_DEBOUNCE_MS);
    kept.timer.unref();
  }

  #tick(): void {
    for (const clientId of this.#kept.keys()) if (this.#options.clients.tabCount(clientId) > 0) void this.#save(clientId);
  }

  /** Saves a client's state; a failure (Chrome away, a state too large) keeps the last one saved. */
  async #save(clientId: string): Promise<void> {
    const kept = this.#kept.get(clientId);
    if (!kept || this.#restoring.has(clientId) || !this.#options.browser.isUp) return;
    if (this.#options.clients.contexts.existing(clientId) === null) return;
    const budget = new Budget(SAVE_TIMEOUT_MS);
    try {
      const text = await this.#snapshot(clientId, budget);
      if (this.#kept.get(clientId) !== kept) return;
      await this.#store.write(clientId, text);
    } catch (error) {
      if (error instanceof ClientRemovedError) return this.#forget(clientId);
      log.warn("cannot save a persistent client; the last saved state stays", { clientId, error: (error as Error).message });
    } finally {
      budget.dispose();
    }
  }

  async #forget(clientId: string): Promise<void> {
    this.release(clientId);
    await this.#store.remove(clientId);
  }

  async #restoreAll(): Promise<void> {
    for (const clientId of [...this.#kept.keys()]) await this.#restoreOne(clientId, { evenWithTabs: false });
  }

  async #restoreOne(clientId: string, options: { evenWithTabs: boolean }): Promise<void> {
    const budget = new Budget(RESTORE_TIMEOUT_MS);
    this.#restoring.add(clientId);
    try {
      // Its context and tabs are still there (an external Chrome's, adopted): nothing to put back.
      if (options.evenWithTabs || this.#options.clients.tabCount(clientId) === 0) await this.#restore(clientId, budget);
    } catch (error) {
      log.warn("cannot restore a persistent client", { clientId, error: (error as Error).message });
    } finally {
      this.#restoring.delete(clientId);
      budget.dispose();
    }
  }

  /**
   * Loads a restored tab's page before the tab is announced, as tabs.open does: a call on it then runs on its page,
   * not on the blank one before it. A page that does not load in time is left loading (or on Chrome's error page).
   */
  async #load(tabId: string, url: string): Promise<void> {
    const budget = new Budget(RESTORE_LOAD_TIMEOUT_MS);
    try {
      await this.#options.loadPage(tabId, url, budget);
    } catch (error) {
      log.warn("a restored tab did not load; it is back at its URL all the same", { tabId, error: (error as Error).message });
    } finally {
      budget.dispose();
    }
  }

  async #restore(clientId: string, budget: Budget): Promise<void> {
    const { clients, browser } = this.#options;
    const text = await budget.race(this.#store.read(clientId));
    if (text === null) throw new Error("no saved state is found");
    const saved: unknown = JSON.parse(text);
    if (!isSavedClient(saved) || saved.clientId !== clientId) throw new Error("the saved state is not one this hub wrote");
    // Its context is made behind the policies it had, or the client is not put back at all.
    if (saved.egress) {
      try {
        this.#options.egress.restore(clientId, saved.egress);
      } catch (error) {
        throw new Error(`its saved egress policy cannot be put back (${(error as Error).message}); the client is not restored`);
      }
    }
    const { contextId, release } = clients.contexts.keep(clientId);
    let show = (): void => {};
    const restored: Parameters<RestoredNotice>[1][] = [];
    try {
      const browserContextId = await budget.race(contextId);
      // Until the client is back whole, its tabs are not listed: none under Chrome's new id, no half of them.
      if (browserContextId !== undefined) show = clients.holdWhileRestoring(browserContextId);
      // A database that cannot be written back costs the client that database, not its tabs and cookies.
      const onIndexedDbFailure = (failure: { origin: string; database: string; message: string }): void => {
        log.warn("cannot restore an IndexedDB database of a persistent client", { clientId, ...failure });
      };
      await importState(this.#options, { clientId, state: saved.state, onIndexedDbFailure }, budget);
      for (const tab of saved.tabs) {
        const where = browserContextId === undefined ? {} : { browserContextId };
        const { targetId } = await browser.connection().send("Target.createTarget", { url: "about:blank", ...where }, { budget });
        clients.alias(clientId, tab.tabId, targetId);
        await this.#load(targetId, tab.url);
        restored.push({ target: `${clientId}:${tab.tabId}`, clientId, tabId: targetId, url: tab.url });
      }
      // Listed and announced (tab.opened) under the targets they had, then told as restored.
      show();
      for (const params of restored) this.#options.notify(clientId, params);
      log.info("restored a persistent client", { clientId, tabs: saved.tabs.length });
    } finally {
      show();
      release();
    }
  }
}
