import { HubError } from "./errors.js";

/** The characters and length every client and tab id must have (no `/`, `..` or `:` inside). */
export const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/** A parsed composite target `clientId:tabId`. */
export interface TargetId {
  clientId: string;
  tabId: string;
}

/** Splits and validates `clientId:tabId`; a malformed one is INVALID_PARAMS. */
export function parseTarget(target: string): TargetId {
  const colon = target.indexOf(":");
  const clientId = target.slice(0, colon);
  const tabId = target.slice(colon + 1);
  if (colon < 0 || !ID_PATTERN.test(clientId) || !ID_PATTERN.test(tabId) || clientId.includes("..") || tabId.includes("..")) {
    throw new HubError("INVALID_PARAMS", `target "${target.slice(0, 300)}" is not clientId:tabId; list tabs with tabs.list`, {
      errors: [{ path: "/target", message: "must be clientId:tabId" }],
    });
  }
  return { clientId, tabId };
}

/** Joins a client id and a tab id into the composite target. */
export function formatTarget(clientId: string, tabId: string): string {
  return `${clientId}:${tabId}`;
}
