export { ConnectionClosedError, TabwireClient, TabwireError, type CallOptions, type TabwireClientOptions } from "./tabwire-client.js";
export type { ConsoleMessage, EvaluateResult, MethodName, Methods, Notifications, SnapshotNode, Tab, TabParams } from "./methods.js";
