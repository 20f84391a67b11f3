import { TabwireClient, type EvaluateResult, type Methods } from "../../src/client/index.js";
import type { TestRpcClient } from "./rpc-client.js";

/** A tab a test opened for itself. */
export interface OpenedTab {
  target: string;
  tabId: string;
  clientId: string;
  url: string;
}

/** What a test may add to tabs.open besides the url. */
export type OpenExtra = Omit<Methods["tabs.open"]["params"], "url">;

/** What a test may add to evaluate besides the target and the expression. */
export type EvaluateExtra = Omit<Methods["evaluate"]["params"], "target" | "expression">;

/** Opens a tab through the hub and waits for it to load. */
export function openTab(client: TabwireClient, url?: string, extra?: OpenExtra): Promise<OpenedTab>;
/** Opens a tab through the hub over a bare wire client and waits for it to load. */
export function openTab(client: TestRpcClient, url?: string, extra?: object): Promise<OpenedTab>;
export function openTab(client: TabwireClient | TestRpcClient, url = "about:blank", extra: object = {}): Promise<OpenedTab> {
  if (client instanceof TabwireClient) return client.call("tabs.open", { url, ...extra });
  return client.call<OpenedTab>("tabs.open", { url, ...extra });
}

/** Closes a tab a test opened; a tab that is already gone is fine. */
export async function closeTab(client: TabwireClient | TestRpcClient, target: string): Promise<void> {
  if (client instanceof TabwireClient) await client.call("tabs.close", { target }).catch(() => undefined);
  else await client.call("tabs.close", { target }).catch(() => undefined);
}

/** Evaluates code (or code with more params) on a tab and returns the hub's result. */
export function evaluate(
  client: TabwireClient,
  target: string,
  code: string | ({ expression: string } & EvaluateExtra),
): Promise<EvaluateResult>;
/** Evaluates code on a tab over a bare wire client and returns the hub's result. */
export function evaluate<T = Record<string, unknown>>(
  client: TestRpcClient,
  target: string,
  code: string | ({ expression: string } & Record<string, unknown>),
): Promise<T>;
export function evaluate(client: TabwireClient | TestRpcClient, target: string, code: string | { expression: string }): Promise<unknown> {
  const params = typeof code === "string" ? { expression: code } : code;
  if (client instanceof TabwireClient) return client.evaluate({ target, ...params });
  return client.call("evaluate", { target, ...params });
}
