import type { Notifications, Params } from "../protocol/types.js";

export {
  CallInDoubtError,
  ConnectionClosedError,
  HubRefusedError,
  TabwireClient,
  TabwireError,
  type CallOptions,
  type TabwireClientOptions,
} from "./tabwire-client.js";
export type { Reconnected } from "./resume-state.js";
export type {
  Client,
  ConsoleLine,
  EvaluateResult,
  MethodName,
  Methods,
  NotificationName,
  Notifications,
  Params,
  Result,
  SnapshotNode,
  Tab,
} from "../protocol/types.js";
export { METHOD_NAMES, NOTIFICATION_NAMES } from "../protocol/types.js";

/** A console.message notification: a logged message addressed to its subscription. */
export type ConsoleMessage = Notifications["console.message"];

/** Every tab-level call's target and budget. */
export type TabParams = Params<"tabs.close">;
