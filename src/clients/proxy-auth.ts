import type { Protocol } from "devtools-protocol";
import type { Browser } from "../cdp/browser.js";
import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import { log } from "../log.js";
import type { ClientManager } from "./client-manager.js";
import type { ClientRoutes } from "./client-routes.js";

const FETCH_TIMEOUT_MS = 5_000;

/** Where ProxyAuth finds a policed client's proxy credential (null: the client has no proxy). */
export type ProxyCredentials = (clientId: string) => Promise<Credentials | null>;

interface Credentials {
  username: string;
  password: string;
}

/**
 * Gives a policed client's context its egress proxy's credential. Chrome has no setting for a proxy password: it
 * asks at the proxy's first 407, through Fetch.authRequired on a tab that intercepts. The first tab of the context
 * intercepts until that first answer; Chrome then keeps the credential in the context's auth cache and sends it
 * with every later request of the context (its other tabs, popups and service workers), so interception stops.
 */
export class ProxyAuth {
  #browser: Browser;
  #clients: ClientManager;
  #routes: ClientRoutes;
  #credentials: ProxyCredentials;
  /** Contexts whose auth cache holds the credential, and their clients. */
  #primed = new Map<string, string>();
  #armed = new Map<string, { tab: TabSession; contextId: string; stop: () => void }>();

  constructor(parts: { pool: SessionPool; browser: Browser; clients: ClientManager; routes: ClientRoutes }, credentials: ProxyCredentials) {
    this.#browser = parts.browser;
    this.#clients = parts.clients;
    this.#routes = parts.routes;
    this.#credentials = credentials;
    parts.pool.onAttach((tab) => this.#attached(tab));
    parts.routes.answerAuthWith((tab, event) => void this.#answer(tab, event));
    parts.clients.contexts.on("closed", (clientId) => {
      for (const [contextId, owner] of this.#primed) if (owner === clientId) this.#primed.delete(contextId);
    });
    parts.browser.on("pageDestroyed", (tabId) => this.#disarm(tabId));
  }

  async #attached(tab: TabSession): Promise<void> {
    const contextId = this.#browser.page(tab.tabId)?.browserContextId;
    const clientId = this.#clients.contexts.clientOf(contextId);
    if (contextId === undefined || clientId === undefined || this.#primed.has(contextId)) return;
    const credentials = await this.#credentials(clientId);
    if (!credentials) return;
    const stops = [
      tab.cdp.listen("Fetch.authRequired", (event) => void this.#answer(tab, event, credentials)),
      // Routes answer the requests of a tab they intercept; the others go on as they are.
      tab.cdp.listen("Fetch.requestPaused", (event) => {
        if (this.#routes.intercepts(tab.tabId)) return;
        void tab.send("Fetch.continueRequest", { requestId: event.requestId }, { timeoutMs: FETCH_TIMEOUT_MS }).catch(() => {});
      }),
    ];
    this.#armed.set(tab.tabId, { tab, contextId, stop: () => stops.forEach((stop) => stop()) });
    await tab.send(
      "Fetch.enable",
      { patterns: [{ urlPattern: "*", requestStage: "Request" }], handleAuthRequests: true },
      { timeoutMs: FETCH_TIMEOUT_MS },
    );
  }

  // The proxy's challenge gets the client's credential (and the context is signed in from then on); a site's, Chrome's default.
  async #answer(tab: TabSession, event: Protocol.Fetch.AuthRequiredEvent, known?: Credentials): Promise<void> {
    const contextId = this.#browser.page(tab.tabId)?.browserContextId;
    const clientId = this.#clients.contexts.clientOf(contextId);
    const credentials =
      event.authChallenge.source === "Proxy" && clientId !== undefined ? (known ?? (await this.#credentials(clientId))) : null;
    const authChallengeResponse = credentials
      ? { response: "ProvideCredentials" as const, ...credentials }
      : { response: "Default" as const };
    await tab
      .send("Fetch.continueWithAuth", { requestId: event.requestId, authChallengeResponse }, { timeoutMs: FETCH_TIMEOUT_MS })
      .catch(() => {});
    if (credentials && contextId !== undefined && clientId !== undefined) this.#primedNow(contextId, clientId);
  }

  #primedNow(contextId: string, clientId: string): void {
    if (this.#primed.has(contextId)) return;
    this.#primed.set(contextId, clientId);
    for (const [tabId, armed] of [...this.#armed]) if (armed.contextId === contextId) this.#disarm(tabId);
  }

  #disarm(tabId: string): void {
    const armed = this.#armed.get(tabId);
    if (!armed) return;
    this.#armed.delete(tabId);
    armed.stop();
    // A tab that routes intercept keeps intercepting for them.
    if (armed.tab.cdp.isClosed || this.#routes.intercepts(tabId)) return;
    armed.tab.send("Fetch.disable", undefined, { timeoutMs: FETCH_TIMEOUT_MS }).catch((error: Error) => {
      log.debug("cannot stop a tab's proxy sign-in interception", { tabId, error: error.message });
    });
  }
}
