import type { Protocol } from "devtools-protocol";
import type { Browser } from "../cdp/browser.js";
import { protocolFailureOf } from "../cdp/protocol-errors.js";
import type { CdpSession } from "../cdp/session.js";
import { HubError } from "../errors.js";
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
// How long a start waits for a page between two documents, trying again this often.
const BETWEEN_DOCUMENTS_WAIT_MS = 3_000;
const BETWEEN_DOCUMENTS_RETRY_MS = 50;
// A session that goes while viewers remain (Chrome detached it) is attached again this many times.
const MAX_RESTARTS = 3;

/**
 * Chrome's screencast of one tab (`Page.startScreencast`) on a CDP session of its own: Chrome allows one screencast
 * per session, and the pooled session's belongs to screenshots of background tabs (capture-lock.ts). Chrome sends the
 * next frame only once the last ones are acknowledged: acknowledging no faster than the fastest viewer's pace keeps
 * Chrome from encoding frames nobody will be sent.
 */
export class TabCaster {
  readonly tabId: string;
  /** The newest frame, for a viewer that joins while the page is still (Chrome sends frames only on change). */
  last: CastFrame | null = null;
  #browser: Browser;
  #onFrame: (frame: CastFrame) => void;
  #settings: CastSettings;
  #session: CdpSession | null = null;
  #lastAckAt = 0;
  #ackTimer: NodeJS.Timeout | null = null;
  /** Frames received and not acknowledged yet (Chrome's frame numbers). */
  #unacked: number[] = [];
  #stopped = false;
  #restarts = 0;

  constructor(options: { browser: Browser; tabId: string; settings: CastSettings; onFrame: (frame: CastFrame) => void }) {
    this.#browser = options.browser;
    this.tabId = options.tabId;
    this.#settings = options.settings;
    this.#onFrame = options.onFrame;
  }

  /** Attaches a session of its own to the tab and starts the screencast; Chrome's refusal is a HubError. */
  async start(): Promise<void> {
    const connection = this.#browser.connection();
    try {
      const timeout = { timeoutMs: ATTACH_TIMEOUT_MS };
      const { sessionId } = await connection.send("Target.attachToTarget", { targetId: this.tabId, flatten: true }, timeout);
      const session = connection.createSession(sessionId, this.tabId);
      if (this.#stopped) return this.#detach(session);
      this.#session = session;
      session.listen("Page.screencastFrame", (event) => this.#frame(session, event));
      session.once("closed", () => this.#sessionGone(session));
      await this.#startWhenAttached(session);
    } catch (error) {
      throw castError(error);
    }
  }

  /** Changes the size, quality or pace (a larger viewer joined, or the largest left): Chrome's screencast starts again. */
  update(settings: CastSettings): void {
    const same = Object.entries(settings).every(([key, value]) => this.#settings[key as keyof CastSettings] === value);
    this.#settings = settings;
    const session = this.#session;
    if (same || !session) return;
    this.#acknowledge(session);
    session
      .send("Page.stopScreencast", undefined, { timeoutMs: COMMAND_TIMEOUT_MS })
      .then(() => this.#startOn(session))
      .catch((error: Error) => log.debug("screencast update failed", { tabId: this.tabId, error: error.message }));
  }

  /** Stops the screencast and detaches its session. */
  stop(): void {
    this.#stopped = true;
    const session = this.#session;
    this.#session = null;
    if (this.#ackTimer) clearTimeout(this.#ackTimer);
    this.#ackTimer = null;
    if (session) void this.#detach(session);
  }

  /**
   * Starts the screencast, waiting out a page between two documents (a tab that is still loading its first page, as the
   * dashboard asks for a thumbnail at tab.opened): Chrome refuses until the new document is attached.
   */
  async #startWhenAttached(session: CdpSession): Promise<void> {
    const until = Date.now() + BETWEEN_DOCUMENTS_WAIT_MS;
    for (;;) {
      try {
        await this.#startOn(session);
        return;
      } catch (error) {
        if (protocolFailureOf(error) !== "not-attached" || Date.now() > until || this.#stopped) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, BETWEEN_DOCUMENTS_RETRY_MS));
    }
  }

  #startOn(session: CdpSession): Promise<unknown> {
    const { maxWidth, maxHeight, quality } = this.#settings;
    return session.send("Page.startScreencast", { format: "jpeg", quality, maxWidth, maxHeight }, { timeoutMs: COMMAND_TIMEOUT_MS });
  }

  #frame(session: CdpSession, event: Protocol.Page.ScreencastFrameEvent): void {
    this.last = { data: event.data, metadata: event.metadata, receivedAt: Date.now() };
    this.#onFrame(this.last);
    // Chrome may have two frames out before the first is acknowledged: every one is acknowledged, or it stops sending.
    this.#unacked.push(event.sessionId);
    if (this.#ackTimer) return;
    // The next frame comes no sooner than the fastest viewer wants one.
    const due = this.#lastAckAt + 1000 / this.#settings.maxFps - Date.now();
    if (due <= 0) this.#acknowledge(session);
    else this.#ackTimer = setTimeout(() => this.#acknowledge(session), due);
  }

  #acknowledge(session: CdpSession): void {
    if (this.#ackTimer) clearTimeout(this.#ackTimer);
    this.#ackTimer = null;
    this.#lastAckAt = Date.now();
    for (const sessionId of this.#unacked.splice(0)) {
      if (!session.isClosed) session.send("Page.screencastFrameAck", { sessionId }, { timeoutMs: COMMAND_TIMEOUT_MS }).catch(() => {});
    }
  }

  async #detach(session: CdpSession): Promise<void> {
    this.#unacked = [];
    if (session.isClosed || !this.#browser.isUp) return;
    const connection = this.#browser.connection();
    connection.dropSession(session.id, new HubError("TARGET_CLOSED", "the live view ended"));
    await connection.send("Target.detachFromTarget", { sessionId: session.id }, { timeoutMs: COMMAND_TIMEOUT_MS }).catch(() => {});
  }

  /** The session went under the viewers (Chrome detached it): attach again, a few times at most. */
  #sessionGone(session: CdpSession): void {
    if (this.#session !== session) return;
    if (this.#ackTimer) clearTimeout(this.#ackTimer);
    this.#ackTimer = null;
    this.#unacked = [];
    this.#session = null;
    if (this.#stopped || this.#restarts >= MAX_RESTARTS || !this.#browser.isUp) return;
    this.#restarts++;
    this.start().catch((error: Error) => log.debug("screencast could not start again", { tabId: this.tabId, error: error.message }));
  }
}

/** Chrome's refusal to attach or cast, as the caller's error: a page between two documents, or a tab that went. */
function castError(error: unknown): unknown {
  if (error instanceof HubError) return error;
  const failure = protocolFailureOf(error);
  if (failure === "not-attached")
    return new HubError(
      "PAGE_NAVIGATED",
      "the page was between two documents (navigating) when its live view was to start; start it again",
    );
  if (failure === "no-target") return new HubError("TARGET_CLOSED", "the tab closed before its live view started");
  return error;
}
