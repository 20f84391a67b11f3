import type { Protocol } from "devtools-protocol";
import { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import type { Browser } from "../cdp/browser.js";
import type { SessionPool } from "../cdp/session-pool.js";
import type { IndexedDatabase } from "../protocol/types.js";
import type { ClientManager } from "./client-manager.js";
import { readCookies, writeCookies } from "./client-cookies.js";
import { IndexedDbTooLarge, readIndexedDb, writeIndexedDb } from "./client-indexed-db.js";

/** Playwright's storage state: cookies, and each origin's localStorage and (where read) IndexedDB databases. */
export interface StorageState {
  cookies: StateCookie[];
  origins: OriginState[];
}

/** One origin's storage in a storage state. */
export interface OriginState {
  origin: string;
  localStorage: { name: string; value: string }[];
  indexedDB?: IndexedDatabase[];
}

/** A cookie as Playwright's storage state writes it. */
export interface StateCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Seconds since the epoch; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: "Strict" | "Lax" | "None";
}

/** The parts of the hub a client's storage is read and written with. */
type Services = { clients: ClientManager; browser: Browser; pool: SessionPool };

const CLOSE_TIMEOUT_MS = 2_000;
const ORIGIN_READ_MS = 1_000;
// An origin's IndexedDB is read record by record, so it gets longer than its localStorage.
const INDEXED_DB_READ_MS = 5_000;
const BLANK_PAGE = Buffer.from("<!doctype html><title></title>").toString("base64");

/** What to export: whose state, and whether each origin's IndexedDB too (at most `maxBytes` of records an origin). */
export interface ExportRequest {
  clientId: string;
  indexedDb?: { maxBytes: number };
}

/**
 * A client's cookies and the localStorage (and, if asked, the IndexedDB) of the origins its tabs show now, as
 * Playwright's storage state; IndexedDbTooLarge when an origin's databases pass the bytes allowed.
 */
export async function exportState(services: Services, request: ExportRequest, budget: Budget): Promise<StorageState> {
  const { clientId } = request;
  const cookies = (await readCookies(services, clientId, budget)).map(stateCookie);
  const byOrigin = new Map<string, string>();
  for (const page of services.browser.pages()) {
    if (services.clients.ownerOf(page.tabId) !== clientId) continue;
    const origin = webOrigin(page.url);
    if (origin !== null && !byOrigin.has(origin)) byOrigin.set(origin, page.tabId);
  }
  // Each tab is asked at once: a busy or hung tab leaves its origin out, never the call.
  const read = await Promise.all(
    [...byOrigin].map(([origin, tabId]) => readOrigin(services, { origin, tabId, indexedDb: request.indexedDb }, budget)),
  );
  const origins = read.filter((entry) => entry.localStorage.length > 0 || (entry.indexedDB?.length ?? 0) > 0);
  return { cookies, origins };
}

/** An origin's localStorage (a second at most) and IndexedDB (if asked, INDEXED_DB_READ_MS at most), from a tab showing it. */
async function readOrigin(
  services: Services,
  from: { origin: string; tabId: string; indexedDb: ExportRequest["indexedDb"] },
  budget: Budget,
): Promise<OriginState> {
  const { origin, tabId, indexedDb } = from;
  const entry: OriginState = { origin, localStorage: [] };
  const each = new Budget(Math.min(ORIGIN_READ_MS, budget.remainingMs()));
  try {
    const tab = await services.pool.acquire(tabId, each);
    entry.localStorage = await readLocalStorage(tab, origin, each);
  } catch (error) {
    log.debug("cannot read an origin's localStorage", { origin, error: (error as Error).message });
  } finally {
    each.dispose();
  }
  if (indexedDb === undefined) return entry;
  const reading = new Budget(Math.min(INDEXED_DB_READ_MS, budget.remainingMs()));
  try {
    const tab = await services.pool.acquire(tabId, reading);
    const databases = await readIndexedDb(tab, indexedDb.maxBytes, reading);
    if (databases.length > 0) entry.indexedDB = databases;
  } catch (error) {
    if (error instanceof IndexedDbTooLarge) throw error;
    log.debug("cannot read an origin's IndexedDB", { origin, error: (error as Error).message });
  } finally {
    reading.dispose();
  }
  return entry;
}

/** What to import: into whose context, the state, and who hears of a database that cannot be written (else INVALID_PARAMS). */
export interface ImportRequest {
  clientId: string;
  state: StorageState;
  onIndexedDbFailure?: (failure: { origin: string; database: string; message: string }) => void;
}

/**
 * Puts a storage state into a client's context: its cookies, and each origin's localStorage and IndexedDB written
 * from a blank page of that origin the hub serves itself (the site is never loaded), closed again at once.
 */
export async function importState(services: Services, into: ImportRequest, budget: Budget): Promise<void> {
  const { clientId, state } = into;
  const browserContextId = await services.clients.contexts.acquire(clientId, budget);
  const inContext = browserContextId === undefined ? {} : { browserContextId };
  if (state.cookies.length > 0) {
    const cookies = state.cookies.map(({ name, value, domain, path, expires, httpOnly, secure, sameSite }) => ({
      ...{ name, value, domain, path, httpOnly, secure, sameSite },
      ...(expires > 0 ? { expires } : {}),
    }));
    await writeCookies(services.browser, { cookies, context: inContext, what: "the state's cookies" }, budget);
  }
  for (const [at, { origin, localStorage, indexedDB = [] }] of state.origins.entries()) {
    if (localStorage.length === 0 && indexedDB.length === 0) continue;
    await onOriginPage(services, { origin, inContext, budget }, async (tab) => {
      await tab.send("DOMStorage.enable", undefined, { budget });
      const storageId = { securityOrigin: origin, isLocalStorage: true };
      for (const { name, value } of localStorage)
        await tab.send("DOMStorage.setDOMStorageItem", { storageId, key: name, value }, { budget });
      if (indexedDB.length === 0) return;
      for (const failed of await writeIndexedDb(tab, { origin, databases: indexedDB }, budget)) {
        const database = indexedDB[failed.index]?.name ?? "";
        if (into.onIndexedDbFailure) into.onIndexedDbFailure({ origin, database, message: failed.message });
        else throw cannotWrite({ origin, database, path: `/state/origins/${at}/indexedDB/${failed.index}` }, failed.message);
      }
    });
  }
}

/** Runs `act` on a new tab of the context showing a blank document at `origin`, served by the hub; the tab is closed after. */
async function onOriginPage(
  services: Services,
  where: { origin: string; inContext: { browserContextId?: string }; budget: Budget },
  act: (tab: TabSession) => Promise<void>,
): Promise<void> {
  const { budget } = where;
  const connection = services.browser.connection();
  const { targetId } = await connection.send("Target.createTarget", { url: "about:blank", ...where.inContext }, { budget });
  try {
    const tab = await services.pool.acquire(targetId, budget);
    const served = new Promise<void>((resolve) => {
      const stop = tab.cdp.listen("Fetch.requestPaused", (event) => {
        stop();
        void tab
          .send(
            "Fetch.fulfillRequest",
            {
              requestId: event.requestId,
              responseCode: 200,
              responseHeaders: [{ name: "content-type", value: "text/html" }],
              body: BLANK_PAGE,
            },
            { budget },
          )
          .finally(resolve);
      });
    });
    await tab.send("Fetch.enable", { patterns: [{ urlPattern: `${where.origin}/*`, requestStage: "Request" }] }, { budget });
    await tab.send("Page.navigate", { url: `${where.origin}/` }, { budget });
    await budget.race(served);
    await tab.send("Fetch.disable", undefined, { budget });
    await act(tab);
  } finally {
    await services.browser.closePage(targetId, AbortSignal.timeout(CLOSE_TIMEOUT_MS)).catch(() => undefined);
  }
}

async function readLocalStorage(tab: TabSession, origin: string, budget: Budget): Promise<{ name: string; value: string }[]> {
  await tab.send("DOMStorage.enable", undefined, { budget });
  const { entries } = await tab.send(
    "DOMStorage.getDOMStorageItems",
    { storageId: { securityOrigin: origin, isLocalStorage: true } },
    { budget },
  );
  return entries.map(([name, value]) => ({ name: name ?? "", value: value ?? "" }));
}

function stateCookie(cookie: Protocol.Network.Cookie): StateCookie {
  const { name, value, domain, path, expires, httpOnly, secure, session, sameSite } = cookie;
  return { name, value, domain, path, expires: session ? -1 : expires, httpOnly, secure, sameSite: sameSite ?? "Lax" };
}

/** The origin of an http(s) page; null for about:, data: and the like, which keep no localStorage of their own. */
/** The http(s) origin of a URL, or null for any other URL (data:, blob:, about:) or text that is not one. */
export function webOrigin(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : null;
  } catch {
    return null;
  }
}

function cannotWrite(where: { origin: string; database: string; path: string }, reason: string): HubError {
  const message = `cannot be written (${reason})`;
  const what = `the IndexedDB database ${JSON.stringify(where.database)} of ${where.origin}`;
  return new HubError("INVALID_PARAMS", `${what} ${message}`, { errors: [{ path: where.path, message }] });
}

/** A state document's origin, checked: an http(s) origin and nothing more. */
export function checkedOrigin(origin: string, index: number): string {
  const parsed = webOrigin(origin);
  if (parsed === null || parsed !== origin.replace(/\/$/, "")) {
    const message = "is not an http(s) origin (scheme://host[:port])";
    throw new HubError("INVALID_PARAMS", `state.origins[${index}].origin ${message}`, {
      errors: [{ path: `/state/origins/${index}/origin`, message }],
    });
  }
  return parsed;
}
