import type { Browser } from "../cdp/browser.js";
import type { ClientManager, TabEntry } from "../clients/client-manager.js";

/**
 * The tabs one MCP session (or 2026-07-28 client) opened, and the popups their pages opened in turn, so that its end
 * closes those and leaves the tabs its client opened over /rpc, /cdp or another session.
 */
export class SessionTabs {
  #browser: Browser;
  #clients: ClientManager;
  #clientId: string;
  #tabIds = new Set<string>();
  #stopListening: (() => void) | null = null;

  constructor(parts: { browser: Browser; clients: ClientManager }, clientId: string) {
    this.#browser = parts.browser;
    this.#clients = parts.clients;
    this.#clientId = clientId;
  }

  /** Counts a tab the session opened as its own, with the popups its page has opened already. */
  add(tabId: string): void {
    // Tabs that went (closed, or lost with Chrome) are forgotten here, so the set holds at most the living ones.
    for (const known of this.#tabIds) if (this.#browser.page(known) === undefined) this.#tabIds.delete(known);
    this.#tabIds.add(tabId);
    this.#listen();
    this.#adoptPopups();
  }

  /** The targets of the session's tabs that are still open, its client's. */
  targets(): string[] {
    this.#adoptPopups();
    return this.#clients
      .tabs({ scope: new Set([this.#clientId]) }, this.#clientId)
      .filter((tab) => this.#tabIds.has(tab.tabId))
      .map((tab) => tab.target);
  }

  /** Stops following the session's popups (the session ended). */
  dispose(): void {
    this.#stopListening?.();
    this.#stopListening = null;
  }

  #listen(): void {
    if (this.#stopListening) return;
    const onOpened = (entry: TabEntry): void => {
      if (this.#isPopupOfOwn(entry.tabId)) this.#tabIds.add(entry.tabId);
    };
    this.#clients.on("tabOpened", onOpened);
    this.#stopListening = () => this.#clients.off("tabOpened", onOpened);
  }

  // A popup opened before tabs.open answered was announced before its opener was counted: it is found here.
  #adoptPopups(): void {
    let grew = true;
    while (grew) {
      grew = false;
      for (const page of this.#browser.pages()) {
        if (this.#tabIds.has(page.tabId) || !this.#isPopupOfOwn(page.tabId)) continue;
        this.#tabIds.add(page.tabId);
        grew = true;
      }
    }
  }

  #isPopupOfOwn(tabId: string): boolean {
    const opener = this.#browser.page(tabId)?.openerId;
    return opener !== undefined && this.#tabIds.has(opener) && this.#clients.ownerOf(tabId) === this.#clientId;
  }
}
