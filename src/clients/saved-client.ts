import type { OwnEgress } from "../egress-rules.js";
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
  /** The egress policies and upstream proxy the client set itself: its tabs never come back without them. */
  egress?: OwnEgress;
}

/** Whether a file's JSON is a saved client as this hub writes them (a damaged or foreign file is not restored). */
export function isSavedClient(value: unknown): value is SavedClient {
  if (!isRecord(value) || value.version !== 1 || typeof value.clientId !== "string") return false;
  const { state, tabs } = value;
  if (!isRecord(state) || !Array.isArray(state.cookies) || !Array.isArray(state.origins) || !Array.isArray(tabs)) return false;
  if (value.egress !== undefined && !isOwnEgress(value.egress)) return false;
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

/** Whether a saved `egress` has the shape clients.configure's schema lets in (its hosts are checked when put back). */
function isOwnEgress(value: unknown): value is OwnEgress {
  if (!isRecord(value) || !Array.isArray(value.policies) || !optional(value.upstreamProxy, isString)) return false;
  return value.policies.every((policy) => {
    if (!isRecord(policy) || !optional(policy.upstreamProxy, isString)) return false;
    const egress = policy.egress;
    if (egress === undefined) return true;
    if (!isRecord(egress)) return false;
    const { allow, block, ports, schemes, blockPrivateNetworks } = egress;
    return (
      optional(allow, isStrings) &&
      optional(block, isStrings) &&
      optional(schemes, isStrings) &&
      optional(ports, (each) => Array.isArray(each) && each.every((port) => Number.isInteger(port))) &&
      optional(blockPrivateNetworks, (each) => typeof each === "boolean")
    );
  });
}

function optional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function isString(value: unknown): boolean {
  return typeof value === "string";
}

function isStrings(value: unknown): boolean {
  return Array.isArray(value) && value.every(isString);
}
