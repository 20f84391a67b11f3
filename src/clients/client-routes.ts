import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import type { Browser } from "../cdp/browser.js";
import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import { newId } from "../ids.js";
import { log } from "../log.js";
import type { ClientManager } from "./client-manager.js";

/** What a route does with a request it matches. */
export type RouteAction =
  | { kind: "block" }
  | { kind: "fulfill"; status: number; headers: Record<string, string>; body: string }
  | { kind: "continue"; headers: Record<string, string> };

/** One route: whose requests (one tab's, or every tab of a client), which URLs, what to do, how many times. */
export interface Route {
  id: string;
  clientId: string;
  /** One tab's requests only; null for every tab of the client, now and later. */
  tabId: string | null;
  /** The URL pattern the caller gave (what is written down to take the route back after a restart). */
  url: string;
  matches: (url: string) => boolean;
  action: RouteAction;
  /** How many more requests it takes; null for all. */
  remaining: number | null;
}

const FETCH_TIMEOUT_MS = 5_000;

/** Where routes are written down to outlive the hub (see ClientStore). */
export interface RouteRecord {
  addRoute(route: Omit<Route, "matches">): Promise<void>;
  removeRoute(routeId: string): void;
  countRoute(routeId: string, remaining: number | null): void;
}

/** Answers an auth challenge a tab's interception raised (the egress proxy's, or a site's). */
export type AuthAnswerer = (tab: TabSession, event: Protocol.Fetch.AuthRequiredEvent) => void;

/**
 * The routes of network.route, through Chrome's Fetch domain: a tab with a route of its own or of its client
 * intercepts its requests, each answered by the newest route that matches it (or let through); a tab with none left
 * stops intercepting. A new session of a tab intercepts again before any call uses it.
 */
export class ClientRoutes {
  #routes = new Map<string, Route>();
  #clients: ClientManager;
  /** The tabs intercepting now, by the session that does it, with what stops listening. */
  #armed = new Map<string, { tab: TabSession; stop: () => void }>();
  #record: RouteRecord | null = null;
  #auth: AuthAnswerer | null = null;
  /** MAX_ROUTES_PER_CLIENT: routes one client may hold, its tabs' and its own. */
  #maxPerClient: number;

  constructor(parts: { pool: SessionPool; browser: Browser; clients: ClientManager }, maxPerClient: number) {
    const { pool, browser, clients } = parts;
    this.#clients = clients;
    this.#maxPerClient = maxPerClient;
    pool.onAttach((tab) => this.#review(tab));
    browser.on("pageCrashed", (tabId) => this.#forgetTab(tabId, true));
    // A tab lost with the connection may come back with it (CDP_URL): its written-down routes wait for it.
    browser.on("pageDestroyed", (tabId, reason) => this.#forgetTab(tabId, reason === "closed" || this.#record === null));
    browser.on("disconnected", () => this.#armed.clear());
    // A client's own routes go with it (idle or abandoned), as its context does; a lost Chrome is not the client going.
    clients.contexts.on("closed", (clientId, reason) => reason !== "browser" && this.forgetClient(clientId));
  }

  /** Takes back the routes a hub before this one wrote down, and writes every route down in `record` from now on. */
  recordIn(record: RouteRecord, kept: readonly Route[]): void {
    this.#record = record;
    for (const route of kept) this.#routes.set(route.id, route);
  }

  /** Adds a route and makes the tabs it covers (`tabs`: their sessions now) intercept; answers its id. */
  async add(route: Omit<Route, "id">, tabs: readonly TabSession[], budget: Budget): Promise<string> {
    const held = this.countOf(route.clientId);
    if (held >= this.#maxPerClient) {
      const message = `client ${route.clientId} has ${held} routes (MAX_ROUTES_PER_CLIENT=${this.#maxPerClient}); remove some with network.unroute first`;
      throw new HubError("OVERLOADED", message, { routes: held, maxRoutes: this.#maxPerClient });
    }
    const id = newId();
    this.#routes.set(id, { ...route, id });
    if (this.#record) {
      const { matches: _matches, ...written } = { ...route, id };
      await budget.race(this.#record.addRoute(written));
    }
    await Promise.all(tabs.map((tab) => this.#review(tab, budget)));
    return id;
  }

  /** How many routes a client holds: its tabs' and its own together. */
  countOf(clientId: string): number {
    let count = 0;
    for (const route of this.#routes.values()) if (route.clientId === clientId) count++;
    return count;
  }

  /** The clients that hold a route of their own (for every tab of theirs), which outlives their tabs. */
  clientIds(): Set<string> {
    const ids = new Set<string>();
    for (const route of this.#routes.values()) if (route.tabId === null) ids.add(route.clientId);
    return ids;
  }

  /** Removes a client's own routes (its tabs' go with each tab): the client went. */
  forgetClient(clientId: string): void {
    for (const route of [...this.#routes.values()]) if (route.tabId === null && route.clientId === clientId) this.remove(route.id);
  }

  /** The route, if the caller's `canSee` reaches its client. */
  get(routeId: string, canSee: (clientId: string) => boolean): Route | undefined {
    const route = this.#routes.get(routeId);
    return route && canSee(route.clientId) ? route : undefined;
  }

  /**
   * Lets a policed client's egress proxy sign in while routes intercept: Fetch.enable replaces the proxy sign-in's
   * own interception, so the routes ask for auth challenges too and hand them to `answer` (ProxyAuth).
   */
  answerAuthWith(answer: AuthAnswerer): void {
    this.#auth = answer;
  }

  /** Whether the tab's session intercepts its requests for routes now (then the routes answer each paused request). */
  intercepts(tabId: string): boolean {
    return this.#armed.has(tabId);
  }

  /** Removes a route; tabs left with none stop intercepting. */
  remove(routeId: string): void {
    this.#routes.delete(routeId);
    this.#record?.removeRoute(routeId);
    for (const { tab } of [...this.#armed.values()]) void this.#review(tab);
  }

  #routesOf(tabId: string): Route[] {
    const owner = this.#clients.ownerOf(tabId);
    return [...this.#routes.values()].filter((route) => route.tabId === tabId || (route.tabId === null && route.clientId === owner));
  }

  /** Makes the tab's session intercept when it has routes, and stop when it has none. */
  async #review(tab: TabSession, budget?: Budget): Promise<void> {
    const wanted = this.#routesOf(tab.tabId).length > 0;
    const armed = this.#armed.get(tab.tabId);
    const options = budget ? { budget } : { timeoutMs: FETCH_TIMEOUT_MS };
    if (wanted && armed?.tab !== tab) {
      armed?.stop();
      const auth = this.#auth;
      const stops = [
        tab.cdp.listen("Fetch.requestPaused", (event) => this.#onPaused(tab, event)),
        ...(auth ? [tab.cdp.listen("Fetch.authRequired", (event) => auth(tab, event))] : []),
      ];
      this.#armed.set(tab.tabId, { tab, stop: () => stops.forEach((stop) => stop()) });
      const handleAuthRequests = auth !== null;
      await tab.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }], handleAuthRequests }, options);
    } else if (!wanted && armed) {
      armed.stop();
      this.#armed.delete(tab.tabId);
      if (!tab.cdp.isClosed) await tab.send("Fetch.disable", undefined, options).catch(() => undefined);
    }
  }

  #onPaused(tab: TabSession, event: Protocol.Fetch.RequestPausedEvent): void {
    const route = this.#routesOf(tab.tabId)
      .reverse()
      .find((each) => each.matches(event.request.url));
    if (route && route.remaining !== null) {
      if (--route.remaining <= 0) this.remove(route.id);
      else this.#record?.countRoute(route.id, route.remaining);
    }
    this.#answer(tab, event, route?.action).catch((error: Error) =>
      log.debug("a routed request could not be answered (its page went?)", { tabId: tab.tabId, error: error.message }),
    );
  }

  #answer(tab: TabSession, event: Protocol.Fetch.RequestPausedEvent, action: RouteAction | undefined): Promise<unknown> {
    const options = { timeoutMs: FETCH_TIMEOUT_MS };
    const { requestId } = event;
    if (!action) return tab.send("Fetch.continueRequest", { requestId }, options);
    if (action.kind === "block") return tab.send("Fetch.failRequest", { requestId, errorReason: "BlockedByClient" }, options);
    if (action.kind === "fulfill") {
      const responseHeaders = Object.entries(action.headers).map(([name, value]) => ({ name, value }));
      return tab.send("Fetch.fulfillRequest", { requestId, responseCode: action.status, responseHeaders, body: action.body }, options);
    }
    const headers = Object.entries({ ...event.request.headers, ...action.headers }).map(([name, value]) => ({
      name,
      value: String(value),
    }));
    return tab.send("Fetch.continueRequest", { requestId, headers }, options);
  }

  /** Forgets the routes of tabs that are not among `tabIds` (a restarted hub's, once Chrome has listed its pages). */
  keepTabs(tabIds: ReadonlySet<string>): void {
    for (const route of [...this.#routes.values()]) if (route.tabId !== null && !tabIds.has(route.tabId)) this.remove(route.id);
  }

  #forgetTab(tabId: string, gone: boolean): void {
    this.#armed.get(tabId)?.stop();
    this.#armed.delete(tabId);
    if (!gone) return;
    for (const route of [...this.#routes.values()]) {
      if (route.tabId !== tabId) continue;
      this.#routes.delete(route.id);
      this.#record?.removeRoute(route.id);
    }
  }
}
