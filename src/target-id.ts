import { HubError } from "./errors.js";

/** The characters and length every client and tab id must have (no `/`, `..` or `:` inside). */
export const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/** A parsed composite target `clientId:tabId`. */
export interface TargetId {
  clientId: string;
  tabId: string;
}

/** What a target looks like, in words, with what lists them (`tabs.list`): where people see a malformed one, not a pattern. */
export function targetShape(lister: string): string {
  return `clientId:tabId, as ${lister} names it (e.g. local:8F3A5C0E9B2D4A61C7E0F1D2B3A49586)`;
}

/** Whether `text` is a well-formed target `clientId:tabId` (whether such a tab exists is another matter). */
export function isTarget(text: string): boolean {
  const colon = text.indexOf(":");
  const clientId = text.slice(0, colon);
  const tabId = text.slice(colon + 1);
  return colon >= 0 && ID_PATTERN.test(clientId) && ID_PATTERN.test(tabId) && !clientId.includes("..") && !tabId.includes("..");
}

/** Splits and validates `clientId:tabId`; a malformed one is INVALID_PARAMS. */
export function parseTarget(target: string): TargetId {
  if (!isTarget(target)) {
    throw new HubError("INVALID_PARAMS", `target "${target.slice(0, 300)}" is not ${targetShape("tabs.list")}`, {
      errors: [{ path: "/target", message: `must be ${targetShape("tabs.list")}` }],
    });
  }
  const colon = target.indexOf(":");
  return { clientId: target.slice(0, colon), tabId: target.slice(colon + 1) };
}

/** Joins a client id and a tab id into the composite target. */
export function formatTarget(clientId: string, tabId: string): string {
  return `${clientId}:${tabId}`;
}
