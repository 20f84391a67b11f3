import type { Protocol } from "devtools-protocol";
import type { Browser } from "../cdp/browser.js";
import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import type { Result } from "../protocol/types.js";

/**
 * One request of a tab, as the hub saw it go and come back: what network.get answers (the generated type), and Chrome's
 * monotonic time of sending in seconds, for durations.
 */
export type NetworkEntry = Result<"network.get">["request"] & { sentAt: number };

const POST_DATA_MAX = 64 * 1024;
// A page may ask for URLs of up to 2 MB (Chrome's limit), hundreds of them: the log keeps each one's beginning, so
// one client's page can neither fill the hub's memory nor make a glob over its log (network.list) costly.
const URL_MAX = 16 * 1024;
const HEADER_VALUE_MAX = 8 * 1024;
const HEADERS_MAX = 64 * 1024;
// What Chrome keeps of responses for Network.getResponseBody (network.get's body), per tab.
const BODY_BUFFER_BYTES = 20 * 1024 * 1024;
const BODY_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The recent requests of each tab (network.list, network.get, network.har): a bounded log per tab, from the moment
 * the hub attached to it, kept until it closes (the oldest go first).
 */
export class NetworkLog {
  #capacity: number;
  #byTab = new Map<string, Map<string, NetworkEntry>>();

  constructor(pool: SessionPool, browser: Browser, capacity: number) {
    this.#capacity = capacity;
    pool.onAttach((tab) => this.#watch(tab));
    browser.onPageGone((tabId) => this.#byTab.delete(tabId));
    browser.on("disconnected", () => this.#byTab.clear());
  }

  /** The tab's requests, oldest first. */
  entries(tabId: string): NetworkEntry[] {
    return [...(this.#byTab.get(tabId)?.values() ?? [])];
  }

  /** One request of the tab. */
  entry(tabId: string, requestId: string): NetworkEntry | undefined {
    return this.#byTab.get(tabId)?.get(requestId);
  }

  async #watch(tab: TabSession): Promise<void> {
    const log = this.#logOf(tab.tabId);
    const cdp = tab.cdp;
    cdp.listen("Network.requestWillBeSent", (event) => this.#sent(log, event));
    cdp.listen("Network.responseReceived", (event) => {
      const entry = log.get(event.requestId);
      if (!entry) return;
      Object.assign(entry, responseFields(event.response));
      entry.resourceType = event.type;
      entry.responseMs = Math.max(0, (event.timestamp - entry.sentAt) * 1000);
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
    });
    cdp.listen("Network.loadingFailed", (event) => {
      const entry = log.get(event.requestId);
      if (!entry) return;
      entry.state = "failed";
      entry.errorText = event.errorText;
      entry.durationMs = Math.max(0, (event.timestamp - entry.sentAt) * 1000);
    });
    await tab.send(
      "Network.enable",
      { maxTotalBufferSize: BODY_BUFFER_BYTES, maxResourceBufferSize: BODY_MAX_BYTES },
      { timeoutMs: 5_000 },
    );
  }

  #sent(log: Map<string, NetworkEntry>, event: Protocol.Network.RequestWillBeSentEvent): void {
    const previous = log.get(event.requestId);
    if (previous && event.redirectResponse) {
      // A redirect reuses the request id: the hop it ends keeps a key of its own.
      log.delete(event.requestId);
      Object.assign(previous, responseFields(event.redirectResponse), { state: "finished" });
      previous.durationMs = Math.max(0, (event.timestamp - previous.sentAt) * 1000);
      previous.requestId = `${event.requestId}.redirect.${log.size}`;
      log.set(previous.requestId, previous);
    }
    const { request } = event;
    const postData = request.postData === undefined ? {} : { postData: request.postData.slice(0, POST_DATA_MAX) };
    log.set(event.requestId, {
      requestId: event.requestId,
      url: (request.url + (request.urlFragment ?? "")).slice(0, URL_MAX),
      method: request.method,
      resourceType: event.type ?? "Other",
      startedAt: Math.round(event.wallTime * 1000),
      sentAt: event.timestamp,
      state: "pending",
      requestHeaders: stringHeaders(request.headers),
      ...postData,
    });
    while (log.size > this.#capacity) log.delete(log.keys().next().value as string);
  }

  #logOf(tabId: string): Map<string, NetworkEntry> {
    let log = this.#byTab.get(tabId);
    if (!log) this.#byTab.set(tabId, (log = new Map()));
    return log;
  }
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
    const text = String(value).slice(0, HEADER_VALUE_MAX);
    room -= name.length + text.length;
    if (room < 0) break;
    kept.push([name, text]);
  }
  // fromEntries defines each name as its own property, `__proto__` too.
  return Object.fromEntries(kept);
}
