/** Types of the hub's methods for the client, checked against protocol/tabwire.openrpc.json by a contract test. */
import type { TabEntry } from "../clients/client-manager.js";
import type { SnapshotNode } from "../runtime/ax-tree.js";
import type { EvaluateResult } from "../runtime/remote-value.js";

export type { EvaluateResult, SnapshotNode };

/** A tab as tabs.list shows it. */
export type Tab = TabEntry;

/** Every tab-level call's target and budget. */
export interface TabParams {
  target: string;
  timeoutMs?: number;
}

/** A console message notification. */
export interface ConsoleMessage {
  subscriptionId: string;
  target: string;
  level: "log" | "info" | "warn" | "error" | "debug";
  text: string;
  args: unknown[];
  timestamp: number;
  source: "console" | "exception" | "browser";
  url?: string;
  lineNumber?: number;
  columnNumber?: number;
  stack?: string;
}

/** Each method's params and result. */
export interface Methods {
  ping: { params: Record<string, never>; result: { pong: true; time: number } };
  "clients.list": { params: Record<string, never>; result: { clients: { clientId: string; agent: null | { state: "connected" | "ready"; connectedAt: number }; tabs: string[] }[] } };
  "tabs.list": { params: { clientId?: string }; result: { tabs: Tab[] } };
  "tabs.open": {
    params: { clientId?: string; url?: string; background?: boolean; waitUntil?: "load" | "domcontentloaded" | "none"; timeoutMs?: number };
    result: { target: string; clientId: string; tabId: string; url: string };
  };
  "tabs.close": { params: TabParams; result: { closed: true } };
  "tabs.activate": { params: TabParams; result: { activated: true } };
  navigate: { params: TabParams & { url: string; waitUntil?: "load" | "domcontentloaded" | "none" }; result: { url: string; title: string } };
  evaluate: {
    params: TabParams & { expression: string; awaitPromise?: boolean; isolate?: boolean; args?: unknown[]; maxSize?: number; captureConsole?: boolean };
    result: EvaluateResult;
  };
  callOn: {
    params: TabParams & {
      functionDeclaration: string;
      ref?: string;
      selector?: string;
      backendNodeId?: number;
      args?: unknown[];
      awaitPromise?: boolean;
      maxSize?: number;
      captureConsole?: boolean;
    };
    result: EvaluateResult;
  };
  snapshot: { params: TabParams & { interestingOnly?: boolean; maxDepth?: number }; result: { snapshotId: string; url: string; title: string; text: string; root: SnapshotNode } };
  screenshot: {
    params: TabParams & {
      format?: "png" | "jpeg" | "webp";
      quality?: number;
      fullPage?: boolean;
      clip?: { x: number; y: number; width: number; height: number };
      ref?: string;
      selector?: string;
      scale?: number;
      maxWidth?: number;
      maxHeight?: number;
    };
    result: { format: string; mimeType: string; data: string; width: number; height: number };
  };
  content: { params: TabParams & { format?: "html" | "text"; maxSize?: number; includeIframes?: boolean }; result: { format: string; content: string; length: number; truncated?: true } };
  cancel: { params: { id: string | number }; result: { cancelled: boolean } };
  "console.subscribe": { params: TabParams & { levels?: ConsoleMessage["level"][]; exceptions?: boolean; replay?: boolean }; result: { subscriptionId: string } };
  "console.unsubscribe": { params: { subscriptionId: string }; result: { unsubscribed: true } };
  "console.list": { params: TabParams & { limit?: number; sinceNavigation?: boolean }; result: { messages: Omit<ConsoleMessage, "subscriptionId" | "target">[] } };
  "events.subscribe": { params: { topics: ("tabs" | "agents" | "clients")[] }; result: { topics: string[] } };
  "agent.run": {
    params: TabParams & { input: string | { role: string; content: string }[]; tool?: string; url?: string; model?: unknown; metadata?: Record<string, unknown> };
    result: unknown;
  };
  "agent.call": { params: TabParams & { method: string; params?: Record<string, unknown> }; result: unknown };
}

/** A hub method name. */
export type MethodName = keyof Methods;

/** Each notification's params. */
export interface Notifications {
  "console.message": ConsoleMessage;
  "console.dropped": { subscriptionId: string; target: string; count: number };
  "dialog.opened": { target: string; type: string; message: string };
  "tab.opened": { target: string; clientId: string; tabId: string; url: string };
  "tab.closed": { target: string; reason: "closed" | "crashed" | "detached" };
  "agent.status": { target: string; requestId: string; status: unknown; progress: unknown; message: unknown };
  "agent.connected": { target: string; clientId: string; tabId: string };
  "agent.ready": { target: string; clientId: string; tabId: string };
  "agent.disconnected": { target: string; clientId: string; tabId: string };
  "client.opened": { clientId: string };
  "client.closed": { clientId: string; reason: "idle" | "browser" };
}

/** The names of the methods, for checking against the OpenRPC document. */
export const METHOD_NAMES: readonly MethodName[] = [
  "ping",
  "clients.list",
  "tabs.list",
  "tabs.open",
  "tabs.close",
  "tabs.activate",
  "navigate",
  "evaluate",
  "callOn",
  "snapshot",
  "screenshot",
  "content",
  "cancel",
  "console.subscribe",
  "console.unsubscribe",
  "console.list",
  "events.subscribe",
  "agent.run",
  "agent.call",
];
