// What every view of the dashboard is, and what it is given.

import type { Rpc } from "./rpc.js";
import type { Screencasts } from "./screencast.js";

/** What a view is given: the connection to the hub and its screencasts. */
export interface AppContext {
  rpc: Rpc;
  screencasts: Screencasts;
}

/**
 * A view (overview, tab view): an element the router shows, told when the connection opens (again: subscriptions are
 * the connection's, so it subscribes anew each time) and closes, and disposed when the route changes.
 */
export interface View {
  readonly element: HTMLElement;
  /** The document's title while the view is shown. */
  readonly title: string;
  connected(): void;
  disconnected(): void;
  dispose(): void;
}
