import type { Browser } from "../cdp/browser.js";
import { log } from "../log.js";
import type { ClientManager } from "./client-manager.js";

const CLOSE_TIMEOUT_MS = 5_000;

/**
 * Holds a client's pages to MAX_TABS_PER_CLIENT: tabs.open refuses past it, and a popup a page opens past it is
 * closed at once, so a page that opens windows in a loop cannot grow its client's share of Chrome.
 */
export function limitPopups(browser: Browser, clients: ClientManager, maxTabsPerClient: number): void {
  clients.on("tabOpened", (entry) => {
    if (browser.page(entry.tabId)?.openerId === undefined) return;
    if (clients.tabCount(entry.clientId) <= maxTabsPerClient) return;
    log.warn("closing a popup past its client's MAX_TABS_PER_CLIENT", {
      clientId: entry.clientId,
      tabId: entry.tabId,
      max: maxTabsPerClient,
    });
    browser.closePage(entry.tabId, AbortSignal.timeout(CLOSE_TIMEOUT_MS)).catch(() => {});
  });
}
