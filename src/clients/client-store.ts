import { readFileSync } from "node:fs";
import path from "node:path";
import { log } from "../log.js";
import { AtomicFile } from "./atomic-file.js";
import type { ContextRecord } from "./client-contexts.js";
import type { RouteAction } from "./client-routes.js";
import { isRecord } from "./saved-client.js";

/** A route as it is written down: its URL pattern instead of the matcher made from it. */
export interface StoredRoute {
  id: string;
  clientId: string;
  tabId: string | null;
  url: string;
  action: RouteAction;
  remaining: number | null;
}

/** What the hub knows of its clients and keeps across a restart: whose context is which, and the routes. */
interface StoreDocument {
  version: 1;
  contexts: Record<string, string>;
  routes: StoredRoute[];
  /** Each tab's emulation and network conditions, as TabEmulation keeps them (it checks them when it takes them back). */
  tabSettings: Record<string, object>;
}

/** The file in DATA_DIR that holds what the hub knows of its clients. */
export const CLIENT_STORE_FILE = "clients.json";

/**
 * What the hub knows about its clients, kept in DATA_DIR/clients.json (0600, replaced atomically): which browser
 * context is whose and each client's routes. A hub on an external Chrome (CDP_URL) reads it at start and adopts
 * what it names; every change is on disk before the call that made it answers.
 */
export class ClientStore implements ContextRecord {
  #file: AtomicFile;
  #contexts = new Map<string, string>();
  #routes = new Map<string, StoredRoute>();
  #tabSettings = new Map<string, object>();

  constructor(dataDir: string) {
    this.#file = new AtomicFile(path.join(dataDir, CLIENT_STORE_FILE));
    this.#load();
  }

  /** The contexts the last hub left, by client id. */
  contexts(): ReadonlyMap<string, string> {
    return new Map(this.#contexts);
  }

  /** The routes the last hub had. */
  routes(): StoredRoute[] {
    return [...this.#routes.values()];
  }

  /** The tabs' emulation and network conditions the last hub had, by tab id. */
  allTabSettings(): ReadonlyMap<string, object> {
    return new Map(this.#tabSettings);
  }

  /** Writes down a tab's settings (null: forgets them); resolves once on disk. */
  tabSettings(tabId: string, settings: object | null): Promise<void> {
    if (settings) this.#tabSettings.set(tabId, settings);
    else if (!this.#tabSettings.delete(tabId)) return Promise.resolve();
    return this.#save();
  }

  /** Writes down a client's new context. */
  made(clientId: string, browserContextId: string): Promise<void> {
    this.#contexts.set(clientId, browserContextId);
    return this.#save();
  }

  /** Forgets a client's context. */
  disposed(clientId: string): void {
    if (this.#contexts.delete(clientId)) this.#saveLater();
  }

  /** Writes down a route; resolves once it is on disk. */
  addRoute(route: StoredRoute): Promise<void> {
    this.#routes.set(route.id, route);
    return this.#save();
  }

  /** Forgets a route (removed, used up, or its tab went). */
  removeRoute(routeId: string): void {
    if (this.#routes.delete(routeId)) this.#saveLater();
  }

  /** Notes how many more requests a route takes. */
  countRoute(routeId: string, remaining: number | null): void {
    const route = this.#routes.get(routeId);
    if (!route) return;
    route.remaining = remaining;
    this.#saveLater();
  }

  #save(): Promise<void> {
    const document: StoreDocument = {
      version: 1,
      contexts: Object.fromEntries(this.#contexts),
      routes: this.routes(),
      tabSettings: Object.fromEntries(this.#tabSettings),
    };
    return this.#file.write(JSON.stringify(document));
  }

  #saveLater(): void {
    this.#save().catch((error: Error) => log.error("cannot write what the hub knows of its clients", { error: error.message }));
  }

  #load(): void {
    let text: string;
    try {
      text = readFileSync(this.#file.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") log.warn("cannot read the client store", { error: (error as Error).message });
      return;
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      log.warn("the client store is not JSON; the hub starts without it", { file: CLIENT_STORE_FILE });
      return;
    }
    if (!isRecord(document) || document.version !== 1) return;
    if (isRecord(document.contexts)) {
      for (const [clientId, id] of Object.entries(document.contexts)) if (typeof id === "string") this.#contexts.set(clientId, id);
    }
    if (Array.isArray(document.routes)) for (const route of document.routes) if (isStoredRoute(route)) this.#routes.set(route.id, route);
    if (isRecord(document.tabSettings)) {
      for (const [tabId, settings] of Object.entries(document.tabSettings)) {
        if (isRecord(settings)) this.#tabSettings.set(tabId, settings);
      }
    }
  }
}

function isStoredRoute(value: unknown): value is StoredRoute {
  if (!isRecord(value) || !isRecord(value.action)) return false;
  const { id, clientId, tabId, url, remaining, action } = value;
  return (
    typeof id === "string" &&
    typeof clientId === "string" &&
    (tabId === null || typeof tabId === "string") &&
    typeof url === "string" &&
    (remaining === null || typeof remaining === "number") &&
    ["block", "fulfill", "continue"].includes(action.kind as string)
  );
}
