import type { Protocol } from "devtools-protocol";
import type { Browser } from "../cdp/browser.js";
import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import type { Result } from "../protocol/types.js";
import { ownCopy } from "../runtime/utf8-cut.js";

/**
 * One request of a tab, as the hub saw it go and come back: what network.get answers (the generated type), and Chrome's
 * monotonic time of sending in seconds, for durations.
 */
export type NetworkEntry = Result<"network.get">["request"] & { sentAt: number };

/** One request as network.list and network.requests show it. */
export type RequestSummary = Result<"network.list">["requests"][number];

/** Which policy and rule refused a tab's failed request to `url`, if one did. */
export type FailureExplainer = (tabId: string, url: string) => { policy: string; rule: string } | undefined;

/** Called when a tab's request was logged or changed (answered, finished, failed, or its redirect's hop refiled). */
export type NetworkChangeListener = (tabId: string, entry: NetworkEntry) => void;

const POST_DATA_MAX = 64 * 1024;
// A page may ask for URLs of up to 2 MB (Chrome's limit), hundreds of them: the log keeps each one's beginning, so
// one client's page can neither fill the hub's memory nor make a glob over its log (network.list) costly.
const URL_MAX = 16 * 1024;
const HEADER_VALUE_MAX = 8 * 1024;
const HEADERS_MAX = 64 * 1024;
// What a tab's log keeps in all, in characters of URLs, headers and post data (the oldest requests go first), and
// what a request costs besides them.
const LOG_CHARS_MAX = 4 * 1024 * 1024;
const ENTRY_CHARS = 256;
// What Chrome keeps of responses for Network.getResponseBody (network.get's body), per tab.
const BODY_BUFFER_BYTES = 20 * 1024 * 1024;
const BODY_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The recent requests of each tab (network.list, network.get, network.har): a bounded log per tab, from the moment
 * the hub attached to it, kept until it closes (the oldest go first).
 */
export class NetworkLog {
  #capacity: number;
  #byTab = new Map<string, TabLog>();
  #listeners = new Set<NetworkChangeListener>();
  #explain: FailureExplainer = () => undefined;

  constructor(pool: SessionPool, browser: Browser, capacity: number) {
    this.#capacity = capacity;
    pool.onAttach((tab) => this.#watch(tab));
    browser.onPageGone((tabId) => this.#byTab.delete(tabId));
    browser.on("disconnected", () => this.#byTab.clear());
  }

  /** The tab's requests, oldest first. */
  entries(tabId: string): NetworkEntry[] {
    return [...(this.#byTab.get(tabId)?.entries.values() ?? [])];
  }

  /** One request of the tab. */
  entry(tabId: string, requestId: string): NetworkEntry | undefined {
    return this.#byTab.get(tabId)?.get(requestId);
  }

  /** Says which policy refused a failed request (the egress policies), so that network.list shows it. */
  explainFailuresWith(explain: FailureExplainer): void {
    this.#explain = explain;
  }

  /** Calls `listener` at every request logged or changed, until the function it returns is called. */
  onChange(listener: NetworkChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async #watch(tab: TabSession): Promise<void> {
    const tabId = tab.tabId;
    const log = this.#logOf(tabId);
    const cdp = tab.cdp;
    const changed = (entry: NetworkEntry): void => {
      for (const listener of this.#listeners) listener(tabId, entry);
    };
    cdp.listen("Network.requestWillBeSent", (event) => this.#sent(log, event).forEach(changed));
    cdp.listen("Network.responseReceived", (event) => {
      const entry = log.get(event.requestId);
      if (!entry) return;
      Object.assign(entry, responseFields(event.response));
      log.grow(entry, headerChars(entry.responseHeaders));
      entry.resourceType = event.type;
      entry.responseMs = Math.max(0, (event.timestamp - entry.sentAt) * 1000);
      changed(entry);
    });
    cdp.listen("Network.requestServedFromCache", (event) => {
      const entry = log.get(event.requestId);
      if (entry) entry.fromCache = true;
    });
    cdp.listen("Network.loadingFinished", (event) => {
      const entry = log.get(event.requestId);
      if (!entry) return;
      entry.state = "finished";
      entry.encodedBytes = event.encodedDataLength;
      entry.durationMs = Math.max(0, (event.timestamp - entry.sentAt) * 1000);
      changed(entry);
    });
    cdp.listen("Network.loadingFailed", (event) => {
      const entry = log.get(event.requestId);
      if (!entry) return;
      entry.state = "failed";
      entry.errorText = event.errorText;
      const blockedBy = this.#explain(tabId, entry.url);
      if (blockedBy) entry.blockedBy = blockedBy;
      entry.durationMs = Math.max(0, (event.timestamp - entry.sentAt) * 1000);
      changed(entry);
    });
    await tab.send(
      "Network.enable",
      { maxTotalBufferSize: BODY_BUFFER_BYTES, maxResourceBufferSize: BODY_MAX_BYTES },
      { timeoutMs: 5_000 },
    );
  }

  /** Logs a request that was sent; answers the entries it made or changed (a redirect's hop, then the request). */
  #sent(log: TabLog, event: Protocol.Network.RequestWillBeSentEvent): NetworkEntry[] {
    const changed: NetworkEntry[] = [];
    const previous = log.get(event.requestId);
    if (previous && event.redirectResponse) {
      // A redirect reuses the request id: the hop it ends keeps a key of its own.
      Object.assign(previous, responseFields(event.redirectResponse), { state: "finished" });
      log.grow(previous, headerChars(previous.responseHeaders));
      previous.durationMs = Math.max(0, (event.timestamp - previous.sentAt) * 1000);
      log.rekey(event.requestId, `${event.requestId}.redirect.${log.entries.size}`);
      changed.push(previous);
    }
    const { request } = event;
    const postData = request.postData === undefined ? {} : { postData: cut(request.postData, POST_DATA_MAX) };
    const entry: NetworkEntry = {
      requestId: event.requestId,
      url: cut(request.url + (request.urlFragment ?? ""), URL_MAX),
      method: request.method,
      resourceType: event.type ?? "Other",
      startedAt: Math.round(event.wallTime * 1000),
      sentAt: event.timestamp,
      state: "pending",
      requestHeaders: stringHeaders(request.headers),
      ...postData,
    };
    log.add(entry, ENTRY_CHARS + entry.url.length + headerChars(entry.requestHeaders) + (entry.postData?.length ?? 0));
    changed.push(entry);
    return changed;
  }

  #logOf(tabId: string): TabLog {
    let log = this.#byTab.get(tabId);
    if (!log) this.#byTab.set(tabId, (log = new TabLog(this.#capacity)));
    return log;
  }
}

/** A request as network.list shows it: no headers or post data, its duration to a tenth of a millisecond. */
export function requestSummary(entry: NetworkEntry): RequestSummary {
  const { requestId, url, method, resourceType, status, state, startedAt, durationMs, encodedBytes, errorText, blockedBy } = entry;
  return {
    requestId,
    url,
    method,
    resourceType,
    state,
    startedAt,
    ...(status === undefined ? {} : { status }),
    ...(durationMs === undefined ? {} : { durationMs: Math.round(durationMs * 10) / 10 }),
    ...(encodedBytes === undefined ? {} : { encodedBytes }),
    ...(errorText === undefined ? {} : { errorText }),
    ...(blockedBy === undefined ? {} : { blockedBy }),
  };
}

/** One tab's requests, oldest first: at most `capacity` of them and LOG_CHARS_MAX characters of their texts. */
class TabLog {
  readonly entries = new Map<string, NetworkEntry>();
  #chars = 0;
  #sizes = new WeakMap<NetworkEntry, number>();

  constructor(readonly capacity: number) {}

  get(requestId: string): NetworkEntry | undefined {
    return this.entries.get(requestId);
  }

  /** Logs a request of about `chars` characters, letting the oldest go past either bound. */
  add(entry: NetworkEntry, chars: number): void {
    this.entries.set(entry.requestId, entry);
    this.grow(entry, chars);
  }

  /** Counts `chars` more characters of a logged request (its response came), letting the oldest go past the bound. */
  grow(entry: NetworkEntry, chars: number): void {
    this.#sizes.set(entry, (this.#sizes.get(entry) ?? 0) + chars);
    this.#chars += chars;
    while (this.entries.size > this.capacity || (this.#chars > LOG_CHARS_MAX && this.entries.size > 1)) {
      const [oldestId, oldest] = this.entries.entries().next().value as [string, NetworkEntry];
      this.entries.delete(oldestId);
      this.#chars -= this.#sizes.get(oldest) ?? 0;
    }
  }

  /** Files a request under another id (a redirect's earlier hop), as the newest. */
  rekey(requestId: string, newId: string): void {
    const entry = this.entries.get(requestId);
    if (!entry) return;
    this.entries.delete(requestId);
    entry.requestId = newId;
    this.entries.set(newId, entry);
  }
}

/** A text cut to `max` characters, in memory of its own (V8 would keep the whole text alive behind a slice). */
function cut(text: string, max: number): string {
  return text.length <= max ? text : ownCopy(text.slice(0, max));
}

function headerChars(headers: Record<string, string> | undefined): number {
  let chars = 0;
  for (const [name, value] of Object.entries(headers ?? {})) chars += name.length + value.length;
  return chars;
}

function responseFields(response: Protocol.Network.Response): Partial<NetworkEntry> {
  return {
    status: response.status,
    statusText: response.statusText,
    mimeType: response.mimeType,
    httpVersion: response.protocol,
    responseHeaders: stringHeaders(response.headers),
    ...(response.fromDiskCache ? { fromCache: true } : {}),
  };
}

/**
 * Headers as strings, each value cut at HEADER_VALUE_MAX characters and at most HEADERS_MAX characters in all (the
 * headers past it left out): a page can send a header of megabytes with every request, and the log keeps 500.
 */
function stringHeaders(headers: Protocol.Network.Headers): Record<string, string> {
  const kept: [string, string][] = [];
  let room = HEADERS_MAX;
  for (const [name, value] of Object.entries(headers)) {
    const text = cut(String(value), HEADER_VALUE_MAX);
    room -= name.length + text.length;
    if (room < 0) break;
    kept.push([name, text]);
  }
  // fromEntries defines each name as its own property, `__proto__` too.
  return Object.fromEntries(kept);
}
