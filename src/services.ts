import type { Browser } from "./cdp/browser.js";
import type { SessionPool } from "./cdp/session-pool.js";
import type { TabSession } from "./cdp/tab-session.js";
import type { ClientManager, TabEntry } from "./clients/client-manager.js";
import type { Config } from "./config.js";
import type { ConsoleStream } from "./events/console-stream.js";
import type { TabEvents } from "./events/tab-events.js";
import type { CallContext, MethodDefinition } from "./rpc/method.js";

/** The parts of the hub every method handler may use. */
export interface HubServices {
  config: Config;
  browser: Browser;
  pool: SessionPool;
  clients: ClientManager;
  console: ConsoleStream;
  tabEvents: TabEvents;
}

/** The context of one call to a hub method. */
export type HubCall = CallContext<HubServices>;

/** Declares a hub method with typed params. */
export function defineMethod<P extends object>(definition: MethodDefinition<HubServices, P>): MethodDefinition<HubServices, P> {
  return definition;
}

/** The tab a target names (TARGET_NOT_FOUND unless the caller may see it) and its pooled session. */
export async function acquireTab(call: HubCall, target: string): Promise<{ entry: TabEntry; tab: TabSession }> {
  const entry = call.services.clients.resolve(target, call.connection);
  const tab = await call.services.pool.acquire(entry.tabId, call.budget);
  return { entry, tab };
}
