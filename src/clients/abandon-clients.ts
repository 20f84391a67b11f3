import type { AgentRegistry } from "../agents/agent-registry.js";
import type { Browser } from "../cdp/browser.js";
import { log } from "../log.js";
import { AbandonWatch, type WatchClock } from "./abandon-watch.js";
import type { ClientManager } from "./client-manager.js";
import type { ClientRoutes } from "./client-routes.js";
import type { PersistentClients } from "./persistent-clients.js";

/** What finding and abandoning unused clients needs: the hub's parts, CLIENT_ABANDON_MS, and a clock for tests. */
export interface AbandonParts {
  browser: Browser;
  clients: ClientManager;
  agents: AgentRegistry;
  routes: ClientRoutes;
  persistent: PersistentClients;
  /** The live views (screencast.start): a client whose tab someone watches is in use. */
  screencasts: { isWatched(tabId: string): boolean };
  abandonMs: number;
  clock?: WatchClock;
}

// What closing an abandoned client's tabs may take before its context is disposed all the same.
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Watches for clients nothing uses for CLIENT_ABANDON_MS (a caller that crashed or forgot its tabs) and closes what
 * they hold: their tabs (`tab.closed` reason `abandoned`), their own routes, their context (`client.closed` reason
 * `abandoned`, its download folder with it). DEFAULT_CLIENT_ID is never abandoned: its tabs are Chrome's default
 * context, with CDP_URL the user's own browsing. A persistent client's tabs are kept by its persistence.
 */
export function watchAbandonedClients(parts: AbandonParts): AbandonWatch {
  const { clients } = parts;
  const watch = new AbandonWatch({
    abandonMs: parts.abandonMs,
    clients: () => holdingClients(parts),
    isInUse: (clientId) => isInUse(parts, clientId),
    abandon: (clientId) => abandon(parts, clientId),
    ...(parts.clock ? { clock: parts.clock } : {}),
  });
  clients.users.on("released", (clientId) => watch.released(clientId));
  watch.start();
  return watch;
}

/** The clients that hold tabs, a context or routes of their own, but the default client. */
function holdingClients(parts: AbandonParts): Set<string> {
  const { browser, clients, routes } = parts;
  const ids = new Set([...clients.contexts.clientIds(), ...routes.clientIds()]);
  for (const page of browser.pages()) ids.add(clients.ownerOf(page.tabId));
  ids.delete(clients.defaultClientId);
  return ids;
}

/** Whether a connection acts for the client, an agent is registered as it, its context is held, it is watched or kept. */
function isInUse(parts: AbandonParts, clientId: string): boolean {
  const { browser, clients, agents, persistent, screencasts } = parts;
  if (clients.users.has(clientId) || clients.contexts.isHeld(clientId) || persistent.isPersistent(clientId)) return true;
  if (agents.all().some((agent) => agent.baseId === clientId)) return true;
  return browser.pages().some((page) => screencasts.isWatched(page.tabId) && clients.ownerOf(page.tabId) === clientId);
}

async function abandon(parts: AbandonParts, clientId: string): Promise<void> {
  const { browser, clients, routes } = parts;
  const tabs = browser.pages().filter((page) => clients.ownerOf(page.tabId) === clientId);
  log.info("closing an abandoned client's tabs", { clientId, tabs: tabs.length });
  const signal = AbortSignal.timeout(CLOSE_TIMEOUT_MS);
  await Promise.all(
    tabs.map((tab) =>
      clients.closeTab(tab.tabId, "abandoned", signal).catch((error: Error) => {
        log.warn("cannot close an abandoned client's tab", { clientId, tabId: tab.tabId, error: error.message });
      }),
    ),
  );
  // Something may have taken the client up while its tabs closed: then its context and routes stay.
  if (isInUse(parts, clientId)) return;
  routes.forgetClient(clientId);
  clients.contexts.end(clientId, "abandoned");
}
