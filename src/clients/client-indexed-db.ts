import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import type { IndexedDatabase } from "../protocol/types.js";
import { READ_INDEXED_DB, WRITE_INDEXED_DB } from "./indexed-db-script.js";

// The page's own scripts cannot reach this world, so a page that replaced indexedDB does not answer for it.
const WORLD_NAME = "tabwire-storage";

/** An origin's IndexedDB read past the bytes allowed: what it took when the read stopped. */
export class IndexedDbTooLarge extends Error {
  readonly bytes: number;

  constructor(bytes: number) {
    super(`an origin's IndexedDB takes more than ${bytes} bytes`);
    this.name = "IndexedDbTooLarge";
    this.bytes = bytes;
  }
}

/** The IndexedDB databases of the origin a tab shows, read in a world of the hub's own; IndexedDbTooLarge past `maxBytes`. */
export async function readIndexedDb(tab: TabSession, maxBytes: number, budget: Budget): Promise<IndexedDatabase[]> {
  const { executionContextId } = await tab.send("Page.createIsolatedWorld", { frameId: tab.tabId, worldName: WORLD_NAME }, { budget });
  // The page stops a little before the budget does, so a read cut short ends in the page too.
  const pageMs = Math.max(0, budget.remainingMs() - 100);
  const answer = await pageScript(
    tab,
    { expression: `(${READ_INDEXED_DB})(${maxBytes}, ${pageMs})`, contextId: executionContextId },
    budget,
  );
  if (typeof answer !== "string") throw new Error("the page's IndexedDB read gave no answer");
  const read = JSON.parse(answer) as { databases?: IndexedDatabase[]; tooLarge?: number; timedOut?: true };
  if (read.tooLarge !== undefined) throw new IndexedDbTooLarge(read.tooLarge);
  if (read.databases === undefined) throw new Error("the page's IndexedDB read ran out of time");
  return read.databases;
}

/** Writes databases into the origin a tab shows (each replacing the one of its name); answers those it could not write. */
export async function writeIndexedDb(
  tab: TabSession,
  into: { origin: string; databases: readonly IndexedDatabase[] },
  budget: Budget,
): Promise<{ index: number; message: string }[]> {
  const { origin, databases } = into;
  // DevTools' deletion closes the connections other tabs hold (as clearing site data does); the page's own would wait
  // for them to close, and stay queued after the call gave up.
  await tab.send("IndexedDB.enable", undefined, { budget });
  for (const { name } of databases) await tab.send("IndexedDB.deleteDatabase", { securityOrigin: origin, databaseName: name }, { budget });
  // A string literal the page parses: the document's text is never read as code.
  const argument = JSON.stringify(JSON.stringify(databases));
  const answer = await pageScript(tab, { expression: `(${WRITE_INDEXED_DB})(JSON.parse(${argument}))` }, budget);
  return (answer as { failed?: { index: number; message: string }[] } | undefined)?.failed ?? [];
}

async function pageScript(tab: TabSession, script: { expression: string; contextId?: number }, budget: Budget): Promise<unknown> {
  const { result, exceptionDetails } = await tab.send(
    "Runtime.evaluate",
    { ...script, awaitPromise: true, returnByValue: true, silent: true },
    { budget },
  );
  if (exceptionDetails) throw new Error(`the page's IndexedDB failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}
