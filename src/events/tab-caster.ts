import type { Protocol } from "devtools-protocol";
import { Budget } from "../budget.js";
import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import { log } from "../log.js";

/** The size, quality and pace of a tab's screencast: the largest any of its viewers asks for. */
export interface CastSettings {
  maxWidth: number;
  maxHeight: number;
  quality: number;
  maxFps: number;
}

/** One frame as Chrome made it: a JPEG (base64) and where it sits in the page. */
export interface CastFrame {
  data: string;
  metadata: Protocol.Page.ScreencastFrameMetadata;
  /** When the hub received it, ms since epoch. */
  receivedAt: number;
}

const ATTACH_TIMEOUT_MS = 10_000;
const COMMAND_TIMEOUT_MS = 5_000;
// A session that goes while viewers remain (recycled, Chrome restarted) is attached again this many times.
const MAX_RESTARTS = 3;

/**
 * Chrome's screencast of one tab (`Page.startScreencast`) on its pooled session, held while anyone watches so the pool
 * never recycles it. Chrome sends the next frame only once the last is acknowledged: acknowledging no faster than the
 * fastest viewer's pace keeps Chrome from encoding frames nobody will be sent.
 */
export class TabCaster {
  readonly tabId: string;
  /** The newest frame, for a viewer that joins while the page is still (Chrome sends frames only on change). */
  last: CastFrame | null = null;
  #pool: SessionPool;
  #onFrame: (frame: CastFrame) => void;
  #settings: CastSettings;
  #tab: TabSession | null = null;
  #release: (() => void)[] = [];
  #lastAckAt = 0;
  #ackTimer: NodeJS.Timeout | null = null;
  /** Frames received and not acknowledged yet (Chrome's frame numbers). */
  #unacked: number[] = [];
  #stopped = false;
  #restarts = 0;

  constructor(options: { pool: SessionPool; tabId: string; settings: CastSettings; onFrame: (frame: CastFrame) => void }) {
    this.#pool = options.pool;
    this.tabId = options.tabId;
    this.#settings = options.settings;
    this.#onFrame = options.onFrame;
  }

  /** Attaches (or reuses the tab's session) and starts the screencast. */
  async start(): Promise<void> {
    const budget = new Budget(ATTACH_TIMEOUT_MS);
    try {
      const tab = await this.#pool.acquire(this.tabId, budget);
      if (this.#stopped) return;
      this.#tab = tab;
      this.#release.push(tab.hold());
      this.#release.push(tab.listen("Page.screencastFrame", (event) => this.#frame(tab, event)));
      const onClosed = (): void => this.#sessionGone();
      tab.cdp.once("closed", onClosed);
      this.#release.push(() => tab.cdp.off("closed", onClosed));
      await this.#send(tab);
    } finally {
      budget.dispose();
    }
  }

  /** Changes the size, quality or pace (a larger viewer joined, or the largest left). */
  update(settings: CastSettings): void {
    const same = Object.entries(settings).every(([key, value]) => this.#settings[key as keyof CastSettings] === value);
    this.#settings = settings;
    if (!same && this.#tab) this.#send(this.#tab).catch((error: Error) => log.debug("screencast update failed", { error: error.message }));
  }

  /** Stops the screencast and lets the pool have the session back. */
  stop(): void {
    this.#stopped = true;
    const tab = this.#tab;
    this.#tab = null;
    for (const release of this.#release.splice(0)) release();
    if (!tab || tab.cdp.isClosed) return;
    // Frames left unacknowledged would hold back the next screencast of the same session.
    this.#acknowledge(tab);
    tab.send("Page.stopScreencast", undefined, { timeoutMs: COMMAND_TIMEOUT_MS }).catch(() => {});
  }

  #send(tab: TabSession): Promise<unknown> {
    const { maxWidth, maxHeight, quality } = this.#settings;
    return tab.send("Page.startScreencast", { format: "jpeg", quality, maxWidth, maxHeight }, { timeoutMs: COMMAND_TIMEOUT_MS });
  }

  #frame(tab: TabSession, event: Protocol.Page.ScreencastFrameEvent): void {
    this.last = { data: event.data, metadata: event.metadata, receivedAt: Date.now() };
    this.#onFrame(this.last);
    // Chrome may have two frames out before the first is acknowledged: every one is acknowledged, or it stops sending.
    this.#unacked.push(event.sessionId);
    if (this.#ackTimer) return;
    // The next frame comes no sooner than the fastest viewer wants one.
    const due = this.#lastAckAt + 1000 / this.#settings.maxFps - Date.now();
    if (due <= 0) this.#acknowledge(tab);
    else this.#ackTimer = setTimeout(() => this.#acknowledge(tab), due);
  }

  #acknowledge(tab: TabSession): void {
    if (this.#ackTimer) clearTimeout(this.#ackTimer);
    this.#ackTimer = null;
    this.#lastAckAt = Date.now();
    for (const sessionId of this.#unacked.splice(0)) {
      if (!tab.cdp.isClosed) tab.send("Page.screencastFrameAck", { sessionId }, { timeoutMs: COMMAND_TIMEOUT_MS }).catch(() => {});
    }
  }

  /** The session went under the viewers (recycled, detached): attach again, a few times at most. */
  #sessionGone(): void {
    for (const release of this.#release.splice(0)) release();
    if (this.#ackTimer) clearTimeout(this.#ackTimer);
    this.#ackTimer = null;
    this.#unacked = [];
    this.#tab = null;
    if (this.#stopped || this.#restarts >= MAX_RESTARTS) return;
    this.#restarts++;
    this.start().catch((error: Error) => log.debug("screencast could not start again", { tabId: this.tabId, error: error.message }));
  }
}
