/**
 * What a failed CDP command says about its page, read from Chrome's message: its error codes do not tell these
 * apart. The one place that knows Chrome's wording (measured on Chromium 156).
 */
export type ProtocolFailure =
  /** The page's document went (a navigation, a reload, the tab closing) while the command used its context. */
  | "context-gone"
  /** The frame the command named is gone (it went with a navigation). */
  | "frame-gone"
  /** The session's page is between two documents. */
  | "not-attached"
  /** Runtime.terminateExecution stopped the script the command ran (without awaitPromise). */
  | "terminated"
  /** Chrome's "Internal error": among others, a script stopped by Runtime.terminateExecution while it was awaited. */
  | "internal-error"
  /** Page.captureScreenshot found no frame to capture (as while a tab replaces its document). */
  | "uncapturable"
  /** The target id names no target (any more). */
  | "no-target"
  /** Page.navigateToHistoryEntry named an entry the tab's history no longer has (a navigation dropped it). */
  | "no-history-entry"
  /** Page.navigate was given a URL Chrome cannot parse (`http://`, `http://[/`, a port past 65535...). */
  | "invalid-url"
  /** The browser context id names no context (any more): Chrome dropped it already. */
  | "no-browser-context";

const FAILURES: readonly [RegExp, ProtocolFailure][] = [
  [/Inspected target navigated or closed|Execution context was destroyed|Cannot find context with specified id/, "context-gone"],
  [/No frame for given id found/, "frame-gone"],
  [/Not attached to an active page/, "not-attached"],
  [/: Execution was terminated$/, "terminated"],
  [/: Internal error$/, "internal-error"],
  [/: Unable to capture screenshot$/, "uncapturable"],
  [/No target with given id/, "no-target"],
  [/No entry with passed id/, "no-history-entry"],
  [/Cannot navigate to invalid URL/, "invalid-url"],
  [/Failed to find context with id|Failed to find browser context/, "no-browser-context"],
];

/** The failure Chrome's message names, or null for any other error (a timeout, a closed session, a bug). */
export function protocolFailureOf(error: unknown): ProtocolFailure | null {
  const message = error instanceof Error ? error.message : String(error);
  for (const [pattern, failure] of FAILURES) if (pattern.test(message)) return failure;
  return null;
}

/** Whether the page's document went under the command: it is PAGE_NAVIGATED (or the tab closed) to the caller. */
export function isContextGone(error: unknown): boolean {
  return protocolFailureOf(error) === "context-gone";
}
