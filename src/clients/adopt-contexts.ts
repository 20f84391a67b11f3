import type { Browser } from "../cdp/browser.js";
import { CDP_COMMAND_TIMEOUT_MS } from "../cdp/callback-registry.js";
import { log } from "../log.js";
import type { ClientManager } from "./client-manager.js";
import type { ClientRoutes, Route } from "./client-routes.js";
import type { ClientStore, StoredRoute } from "./client-store.js";

/** What adopting a hub's clients on an external Chrome takes: the store, the parts that keep clients, a URL matcher. */
export interface AdoptionParts {
  store: ClientStore;
  browser: Browser;
  clients: ClientManager;
  routes: ClientRoutes;
  /** The tabs' emulation (runtime/'s TabEmulation), kept in the store as well. */
  emulation: {
    recordIn(record: ClientStore, kept: ReadonlyMap<string, unknown>): void;
    keepTabs(tabIds: ReadonlySet<string>): void;
  };
  /** The matcher of a route's URL pattern (network.route's); throws for a pattern it refuses. */
  matcherOf(url: string): (url: string) => boolean;
}

/**
 * With CDP_URL the clients' contexts stay in Chrome when the hub goes (stopped or killed): the next hub takes back
 * what the store names before Chrome lists its pages, so each page is its client's from the first moment, then keeps
 * what Chrome still has (the rest is forgotten) and takes the routes and the tabs' emulation back. The same happens
 * when the connection to Chrome comes back within a run. A context whose client has no tab and no agent is disposed after CLIENT_IDLE_MS.
 */
export function adoptClients(parts: AdoptionParts): void {
  const { store, browser, clients, routes, emulation } = parts;
  routes.recordIn(
    store,
    store.routes().flatMap((stored) => routeOf(stored, parts.matcherOf)),
  );
  emulation.recordIn(store, store.allTabSettings());
  const adopt = (): ReadonlyMap<string, string> => {
    const adopted = store.contexts();
    for (const [clientId, browserContextId] of adopted) clients.contexts.adopt(clientId, browserContextId);
    return adopted;
  };
  let adopted = adopt();
  browser.on("disconnected", () => (adopted = adopt()));
  browser.on("connected", () => {
    const claimed = adopted;
    browser
      .connection()
      .send("Target.getBrowserContexts", undefined, { timeoutMs: CDP_COMMAND_TIMEOUT_MS })
      .then(({ browserContextIds }) => {
        clients.contexts.confirm(new Set(browserContextIds), claimed);
        const tabIds = new Set(browser.pages().map((page) => page.tabId));
        routes.keepTabs(tabIds);
        emulation.keepTabs(tabIds);
        log.info("took back the clients a hub before this one left in Chrome", { clients: claimed.size });
      })
      .catch((error: Error) => log.warn("cannot list Chrome's browser contexts to adopt them", { error: error.message }));
  });
}

function routeOf(stored: StoredRoute, matcherOf: AdoptionParts["matcherOf"]): Route[] {
  try {
    return [{ ...stored, matches: matcherOf(stored.url) }];
  } catch {
    log.warn("a written-down route has a pattern this hub refuses; it is dropped", { routeId: stored.id });
    return [];
  }
}
