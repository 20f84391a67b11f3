import type { TestRpcClient } from "./rpc-client.js";

/** A tab a test opened for itself. */
export interface OpenedTab {
  target: string;
  tabId: string;
  clientId: string;
  url: string;
}

/** Opens a tab through the hub and waits for it to load. */
export function openTab(client: TestRpcClient, url = "about:blank", extra: object = {}): Promise<OpenedTab> {
  return client.call<OpenedTab>("tabs.open", { url, ...extra });
}

/** Closes a tab a test opened; a tab that is already gone is fine. */
export async function closeTab(client: TestRpcClient, target: string): Promise<void> {
  await client.call("tabs.close", { target }).catch(() => undefined);
}

/** Evaluates code on a tab and returns the hub's result. */
export function evaluate<T = Record<string, unknown>>(client: TestRpcClient, target: string, expression: string, extra: object = {}): Promise<T> {
  return client.call<T>("evaluate", { target, expression, ...extra });
}
