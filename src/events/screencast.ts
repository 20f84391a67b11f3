import type { Browser } from "../cdp/browser.js";
import { newId } from "../ids.js";
import { log } from "../log.js";
import type { ConnectionState } from "../rpc/method.js";
import { Subscriptions } from "./subscriptions.js";
import { TabCaster, type CastFrame, type CastSettings } from "./tab-caster.js";

/** What a viewer asks for: the tab, and the size, quality and pace of its frames. */
export interface ViewerOptions extends CastSettings {
  tabId: string;
  target: string;
}

interface Viewer {
  id: string;
  tabId: string;
  connection: ConnectionState;
  options: ViewerOptions;
  lastSentAt: number;
  /** The newest frame not sent yet (the viewer's pace held it back), sent when its turn comes unless a newer one replaces it. */
  waiting: CastFrame | null;
  timer: NodeJS.Timeout | null;
}

// A viewer whose socket holds more than this unsent is skipped: frames are dropped, never queued behind each other.
const MAX_BACKLOG_BYTES = 512 * 1024;

/**
 * Live views of tabs (screencast.start): one Chrome screencast per tab however many watch it, its frames sent to each
 * viewer at the viewer's own pace, the newest only. A slow viewer loses frames, not time; a viewer that joins a still
 * page gets its last frame at once.
 */
export class Screencasts {
  #browser: Browser;
  #viewers = new Subscriptions<Viewer>((viewer) => this.#removed(viewer));
  #casters = new Map<string, { caster: TabCaster; started: Promise<void> }>();

  constructor(browser: Browser) {
    this.#browser = browser;
    browser.onPageGone((tabId) => this.#viewers.dropTab(tabId));
  }

  /** Starts sending a tab's frames to a connection; ends when it stops, closes, or the tab goes. */
  async subscribe(connection: ConnectionState, options: ViewerOptions): Promise<string> {
    const viewer: Viewer = {
      id: newId(),
      tabId: options.tabId,
      connection,
      options,
      lastSentAt: 0,
      waiting: null,
      timer: null,
    };
    this.#viewers.add(viewer);
    const existing = this.#casters.get(options.tabId);
    if (existing) {
      existing.caster.update(this.#settingsOf(options.tabId));
      await this.#joined(viewer, existing.started);
      if (existing.caster.last) this.#offer(viewer, existing.caster.last);
      return viewer.id;
    }
    const created = new TabCaster({
      browser: this.#browser,
      tabId: options.tabId,
      settings: this.#settingsOf(options.tabId),
      onFrame: (frame) => {
        for (const each of this.#viewers.ofTab(options.tabId)) this.#offer(each, frame);
      },
    });
    const started = created.start();
    this.#casters.set(options.tabId, { caster: created, started });
    await this.#joined(viewer, started);
    return viewer.id;
  }

  /** Waits for the tab's screencast to start; a viewer of one that could not start is removed, and the call fails. */
  async #joined(viewer: Viewer, started: Promise<void>): Promise<void> {
    try {
      await started;
    } catch (error) {
      this.#viewers.remove(viewer);
      throw error;
    }
  }

  /** Whether someone watches the tab live now. */
  isWatched(tabId: string): boolean {
    return this.#casters.has(tabId);
  }

  /** The newest frame of a tab's live view, if one runs (the timeline's pictures take it rather than a capture). */
  lastFrame(tabId: string): CastFrame | null {
    return this.#casters.get(tabId)?.caster.last ?? null;
  }

  /** How many live views a connection holds. */
  countOf(connection: ConnectionState): number {
    return this.#viewers.countOf(connection);
  }

  /** Ends one of the connection's live views; false when it has none with that id. */
  unsubscribe(connection: ConnectionState, subscriptionId: string): boolean {
    return this.#viewers.unsubscribe(connection, subscriptionId);
  }

  /** Sends a frame now if the viewer's pace allows, else keeps it (the newest only) for when it does. */
  #offer(viewer: Viewer, frame: CastFrame): void {
    const due = viewer.lastSentAt + 1000 / viewer.options.maxFps - Date.now();
    if (due <= 0 && viewer.timer === null) return this.#send(viewer, frame);
    viewer.waiting = frame;
    viewer.timer ??= setTimeout(
      () => {
        viewer.timer = null;
        const waiting = viewer.waiting;
        viewer.waiting = null;
        if (waiting && this.#viewers.has(viewer)) this.#send(viewer, waiting);
      },
      Math.max(0, due),
    );
  }

  #send(viewer: Viewer, frame: CastFrame): void {
    viewer.lastSentAt = Date.now();
    if ((viewer.connection.bufferedBytes?.() ?? 0) > MAX_BACKLOG_BYTES) return;
    const { metadata } = frame;
    viewer.connection.notify("screencast.frame", {
      subscriptionId: viewer.id,
      target: viewer.options.target,
      data: frame.data,
      deviceWidth: metadata.deviceWidth,
      deviceHeight: metadata.deviceHeight,
      pageScaleFactor: metadata.pageScaleFactor,
      offsetTop: metadata.offsetTop,
      scrollOffsetX: metadata.scrollOffsetX,
      scrollOffsetY: metadata.scrollOffsetY,
      timestamp: metadata.timestamp === undefined ? frame.receivedAt : Math.round(metadata.timestamp * 1000),
    });
  }

  /** A viewer went: its tab's screencast stops with its last viewer, or fits the viewers left. */
  #removed(viewer: Viewer): void {
    if (viewer.timer) clearTimeout(viewer.timer);
    const { tabId } = viewer;
    const caster = this.#casters.get(tabId)?.caster;
    if (!caster) return;
    if (this.#viewers.ofTab(tabId).size === 0) {
      this.#casters.delete(tabId);
      caster.stop();
      log.debug("screencast stopped", { tabId });
    } else caster.update(this.#settingsOf(tabId));
  }

  /** The largest size, best quality and fastest pace the tab's viewers ask for. */
  #settingsOf(tabId: string): CastSettings {
    const settings: CastSettings = { maxWidth: 1, maxHeight: 1, quality: 1, maxFps: 1 };
    for (const { options } of this.#viewers.ofTab(tabId)) {
      settings.maxWidth = Math.max(settings.maxWidth, options.maxWidth);
      settings.maxHeight = Math.max(settings.maxHeight, options.maxHeight);
      settings.quality = Math.max(settings.quality, options.quality);
      settings.maxFps = Math.max(settings.maxFps, options.maxFps);
    }
    return settings;
  }
}
