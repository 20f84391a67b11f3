import type { Caller, ClientManager, TabEntry } from "../clients/client-manager.js";
import { redactUrl } from "../log.js";
import type { TimelineSettings } from "../timeline-settings.js";
import { TimelineRing, type NewEntry } from "./timeline-ring.js";

/** One tab's timeline: whose tab it is, what it showed last, and its entries. */
export interface TabTimeline {
  /** The client that owned the tab when these entries were made: only its callers read them. */
  clientId: string;
  tabId: string;
  target: string;
  url: string;
  title: string;
  ring: TimelineRing;
  isClosed: boolean;
}

/**
 * Every tab's timeline (timeline.get, timeline.export), kept by the hub from the tab's first event to its close, then
 * for TIMELINE_CLOSED_TTL_MS more (the newest TIMELINE_CLOSED_TABS closed tabs of each client, and hub-wide at most
 * TIMELINE_CLOSED_TABS times TIMELINE_MAX_BYTES together, so that clients that come and go cannot pile them up). A tab whose owner
 * changes (an agent claims a tab of Chrome's default context) starts a new timeline: the old owner's is not handed on.
 */
export class TabTimelines {
  readonly settings: TimelineSettings;
  #clients: ClientManager;
  #open = new Map<string, TabTimeline>();
  /** Closed tabs' timelines by target, each client's oldest first. */
  #closed = new Map<string, Map<string, { timeline: TabTimeline; timer: NodeJS.Timeout; bytes: number }>>();
  /** Every kept closed timeline's client by target, oldest closed first, and their bytes together. */
  #closedOrder = new Map<string, string>();
  #closedBytes = 0;

  constructor(settings: TimelineSettings, clients: ClientManager) {
    this.settings = settings;
    this.#clients = clients;
  }

  /** The timeline of an open tab a caller's call names, to record the call in; undefined when there is none to record in. */
  forCall(target: string, caller: Caller): TabTimeline | undefined {
    if (!this.settings.enabled) return undefined;
    const tabId = this.#clients.tabIdOf(target, caller);
    return tabId === undefined ? undefined : this.#timelineOf(tabId);
  }

  /** Records something that happened on an open tab (an event of its page, of the hub, of its agent). */
  record(tabId: string, entry: NewEntry): void {
    if (!this.settings.enabled) return;
    this.#timelineOf(tabId)?.ring.push(entry);
  }

  /** The timeline a caller asks for: an open tab's, or a closed one's still kept; TARGET_NOT_FOUND as for any tab otherwise. */
  read(target: string, caller: Caller): TabTimeline {
    const closed = this.#closedOf(target);
    if (closed && this.#clients.canSee(caller, closed.clientId)) return closed;
    const entry = this.#clients.resolve(target, caller);
    return (this.settings.enabled ? this.#timelineOf(entry.tabId) : undefined) ?? this.#blank(entry);
  }

  /** A tab appeared: its timeline starts (with TIMELINE_ENABLED). */
  opened(entry: TabEntry): void {
    if (!this.settings.enabled) return;
    const timeline = this.#timelineOf(entry.tabId);
    if (timeline) Object.assign(timeline, { target: entry.target, url: redactUrl(entry.url), title: entry.title });
  }

  /** A tab's page has a new URL or title (the URL redacted): true when the URL is new, a navigation. */
  pageChanged(tabId: string, page: { url: string; title: string }): boolean {
    const timeline = this.settings.enabled ? this.#timelineOf(tabId) : undefined;
    if (!timeline) return false;
    timeline.title = page.title;
    if (timeline.url === page.url) return false;
    timeline.url = page.url;
    return true;
  }

  /** A tab went: its timeline is kept, closed, for TIMELINE_CLOSED_TTL_MS (and while its client's closed tabs fit). */
  closed(entry: TabEntry): void {
    const timeline = this.#open.get(entry.tabId);
    this.#open.delete(entry.tabId);
    const { closedTtlMs, closedTabs } = this.settings;
    if (!timeline || timeline.clientId !== entry.clientId || closedTtlMs === 0 || closedTabs === 0) return;
    timeline.isClosed = true;
    timeline.target = entry.target;
    let kept = this.#closed.get(entry.clientId);
    if (!kept) this.#closed.set(entry.clientId, (kept = new Map()));
    const timer = setTimeout(() => this.#forget(entry.clientId, entry.target), closedTtlMs);
    timer.unref();
    // Counted as it closed: a read drops its expired entries later, and the sum must lose what it gained, no more.
    const { bytes } = timeline.ring;
    kept.set(entry.target, { timeline, timer, bytes });
    this.#closedOrder.set(entry.target, entry.clientId);
    this.#closedBytes += bytes;
    for (const [target] of kept) {
      if (kept.size <= closedTabs) break;
      this.#forget(entry.clientId, target);
    }
    for (const [target, clientId] of this.#closedOrder) {
      if (this.#closedBytes <= closedTabs * this.settings.maxBytes || this.#closedOrder.size <= 1) break;
      this.#forget(clientId, target);
    }
  }

  /** How many closed tabs' timelines are kept, hub-wide, and the bytes they hold. */
  get closedKept(): { timelines: number; bytes: number } {
    return { timelines: this.#closedOrder.size, bytes: this.#closedBytes };
  }

  /** A page went: a timeline `closed` did not keep (a tab never announced, held back while its client was restored) goes. */
  gone(tabId: string): void {
    this.#open.delete(tabId);
  }

  /** The tab's timeline, made at its first entry; a new one when the tab changed owner; none for a tab that is gone. */
  #timelineOf(tabId: string): TabTimeline | undefined {
    const clientId = this.#clients.ownerOf(tabId);
    const existing = this.#open.get(tabId);
    if (existing?.clientId === clientId) return existing;
    const entry = this.#clients.entryOf(tabId);
    if (!entry) return undefined;
    const timeline = this.#blank(entry);
    this.#open.set(tabId, timeline);
    return timeline;
  }

  #blank(entry: TabEntry): TabTimeline {
    const { clientId, tabId, target, url, title } = entry;
    return { clientId, tabId, target, url: redactUrl(url), title, ring: new TimelineRing(this.settings), isClosed: false };
  }

  #closedOf(target: string): TabTimeline | undefined {
    const colon = target.indexOf(":");
    return colon < 0 ? undefined : this.#closed.get(target.slice(0, colon))?.get(target)?.timeline;
  }

  #forget(clientId: string, target: string): void {
    const kept = this.#closed.get(clientId);
    const found = kept?.get(target);
    if (!kept || !found) return;
    clearTimeout(found.timer);
    kept.delete(target);
    this.#closedOrder.delete(target);
    this.#closedBytes -= found.bytes;
    if (kept.size === 0) this.#closed.delete(clientId);
  }
}
