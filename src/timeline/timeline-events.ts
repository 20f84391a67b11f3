import type { AgentActivity, AgentRecord, AgentRegistry } from "../agents/agent-registry.js";
import type { Browser } from "../cdp/browser.js";
import type { ClientManager, TabEntry } from "../clients/client-manager.js";
import type { ConsoleStream, PageSaid } from "../events/console-stream.js";
import { requestSummary, type NetworkEntry, type NetworkLog } from "../events/network-log.js";
import { redact, redactUrl } from "../log.js";
import type { Notifications } from "../protocol/types.js";
import type { NewEntry } from "./timeline-ring.js";
import type { TabTimelines } from "./tab-timelines.js";

/** Where the timelines hear of the tabs' events: the parts that already receive them (no CDP listener of their own). */
export interface TimelineSources {
  timelines: TabTimelines;
  browser: Browser;
  clients: ClientManager;
  console: ConsoleStream;
  network: NetworkLog;
  agents: AgentRegistry;
}

// What an entry keeps of a page's text (a console message, a dialog's): a line, not a page; and of a URL.
const MAX_TEXT_CHARS = 300;
const MAX_URL_CHARS = 2_048;

/**
 * Writes the tabs' events into their timelines: tabs opened and closed, navigations (a new URL of the page), console
 * messages and exceptions, requests when they finish or fail (as network.list has them), dialogs, the agent's pauses
 * and resumes. Downloads come through `download` (the downloads' notices). Answers a disposer.
 */
export function watchTimelines(sources: TimelineSources): { download: DownloadListener; stop: () => void } {
  const { timelines, browser, clients, console, network, agents } = sources;
  if (!timelines.settings.enabled) return { download: () => {}, stop: () => {} };
  const record = (tabId: string, entry: NewEntry): void => timelines.record(tabId, entry);
  const opened = (entry: TabEntry): void => {
    timelines.opened(entry);
    const url = cutUrl(redactUrl(entry.url));
    record(entry.tabId, { seq: 0, at: Date.now(), kind: "tab", summary: cut(`tab opened at ${url}`), url });
  };
  const closed = (entry: TabEntry, reason: string): void => {
    record(entry.tabId, { seq: 0, at: Date.now(), kind: "tab", summary: `tab closed (${reason})` });
    timelines.closed(entry);
  };
  const changed = (page: { tabId: string; url: string; title: string }): void => {
    const url = cutUrl(redactUrl(page.url));
    if (timelines.pageChanged(page.tabId, { url, title: page.title }))
      record(page.tabId, { seq: 0, at: Date.now(), kind: "navigation", summary: cut(`navigated to ${url}`), url });
  };
  const activity = (agent: AgentRecord, what: AgentActivity): void => {
    if (what.kind !== "paused" && what.kind !== "resumed") return;
    const reason = typeof what.message === "string" && what.message !== "" ? `: ${cut(redact(what.message))}` : "";
    record(agent.tabId, { seq: 0, at: Date.now(), kind: "agent", summary: `agent ${what.kind}${reason}` });
  };
  clients.on("tabOpened", opened);
  clients.on("tabClosed", closed);
  browser.on("pageChanged", changed);
  // After the tab's `tabClosed` (ClientManager listens first): what that did not keep goes.
  browser.onPageGone((tabId) => timelines.gone(tabId));
  agents.on("activity", activity);
  const stopConsole = console.onPageSaid((tabId, said) => record(tabId, saidEntry(said)));
  const stopNetwork = network.onChange((tabId, request) => {
    if (request.state !== "pending") record(tabId, requestEntry(request));
  });
  const downloads = new Map<string, string>();
  return {
    download: (notice, tabId) => {
      const { method, params } = notice;
      const at = Date.now();
      if (method === "download.started" && tabId !== undefined) {
        const { downloadId, url, filename } = params as Notifications["download.started"];
        downloads.set(downloadId, tabId);
        record(tabId, { seq: 0, at, kind: "download", summary: `download of ${cut(filename)} started`, url: cutUrl(redactUrl(url)) });
      } else if (method === "download.finished") {
        const { downloadId, state, bytes } = params as Notifications["download.finished"];
        const from = downloads.get(downloadId);
        downloads.delete(downloadId);
        if (from !== undefined)
          record(from, { seq: 0, at, kind: "download", summary: `download ${state} (${bytes} bytes)`, outcome: state });
      }
    },
    stop: () => {
      clients.off("tabOpened", opened);
      clients.off("tabClosed", closed);
      browser.off("pageChanged", changed);
      agents.off("activity", activity);
      stopConsole();
      stopNetwork();
    },
  };
}

/** Told of the downloads' notices, with the tab a download started from. */
export type DownloadListener = (
  notice: { method: "download.started" | "download.finished" | "download.removed"; params: object },
  tabId?: string,
) => void;

function saidEntry(said: PageSaid): NewEntry {
  if (said.kind === "dialog") {
    return {
      seq: 0,
      at: Date.now(),
      kind: "dialog",
      summary: `${said.type} dialog: ${cut(redact(said.message))}`,
      url: cutUrl(redactUrl(said.url)),
    };
  }
  const { message } = said;
  const kind = message.source === "exception" ? "exception" : "console";
  return { seq: 0, at: Date.now(), kind, summary: cut(redact(message.text)), level: message.level };
}

/** A finished or failed request as network.list has it: method, URL (redacted), status, duration; never headers or bodies. */
function requestEntry(request: NetworkEntry): NewEntry {
  const summary = requestSummary(request);
  const url = cutUrl(redactUrl(summary.url));
  const status = summary.status ?? 0;
  const ending = summary.state === "failed" ? `failed (${summary.errorText ?? "error"})` : String(status);
  return {
    seq: 0,
    at: Date.now(),
    kind: "network",
    summary: cut(`${summary.method} ${ending} ${url}`),
    method: summary.method,
    url,
    status,
    durationMs: summary.durationMs,
  };
}

function cut(text: string, maxChars = MAX_TEXT_CHARS): string {
  return text.length <= maxChars ? text : copied(`${text.slice(0, maxChars)}…`);
}

function cutUrl(url: string): string {
  return cut(url, MAX_URL_CHARS);
}

// A slice of a string keeps the whole string alive in V8 (a sliced string points into it): a kept entry cut from a
// 32 KB console message held all 32 KB. A copy holds only its own characters.
function copied(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}
