import type { StorageState } from "./client-storage.js";

/** One tab of a persistent client as saved: the tab id of the target it answers to, where it was, its title. */
export interface SavedTab {
  tabId: string;
  url: string;
  title: string;
}

/** A persistent client's saved state (DATA_DIR/persistent/<clientId>.json): its storage (IndexedDB too) and its tabs, in order. */
export interface SavedClient {
  version: 1;
  clientId: string;
  savedAt: number;
  state: StorageState;
  tabs: SavedTab[];
}

/** Whether a file's JSON is a saved client as this hub writes them (a damaged or foreign file is not restored). */
export function isSavedClient(value: unknown): value is SavedClient {
  if (!isRecord(value) || value.version !== 1 || typeof value.clientId !== "string") return false;
  const { state, tabs } = value;
  if (!isRecord(state) || !Array.isArray(state.cookies) || !Array.isArray(state.origins) || !Array.isArray(tabs)) return false;
  return (
    tabs.every((tab) => isRecord(tab) && typeof tab.tabId === "string" && typeof tab.url === "string") &&
    state.cookies.every((cookie) => isRecord(cookie) && typeof cookie.name === "string" && typeof cookie.value === "string") &&
    state.origins.every(
      // A file written before IndexedDB was saved has none: still this hub's.
      (origin) =>
        isRecord(origin) &&
        typeof origin.origin === "string" &&
        Array.isArray(origin.localStorage) &&
        (origin.indexedDB === undefined || Array.isArray(origin.indexedDB)),
    )
  );
}

/** Whether a value read from a file is a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
