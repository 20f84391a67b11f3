import type { Protocol } from "devtools-protocol";
import type { CdpConnection } from "../cdp/connection.js";
import { CdpFailure } from "./cdp-frames.js";

/** What the emulation needs of its /cdp connection. */
export interface CdpDownloadsOptions {
  /** Whether a frame id is one of the connection's client's pages (a download's starting page). */
  isOwnPage: (frameId: string) => boolean;
  /** Sends an event to the caller. */
  emit: (message: object) => void;
  /** Cancels one of the client's downloads, started by the page `frameId`. */
  cancel: (download: { guid: string; frameId: string }) => void;
  /** Makes the contexts of the connection's clients refuse downloads (true), or stops asking for it (false). */
  refuse: (refused: boolean) => Promise<void>;
}

const BEHAVIORS: ReadonlySet<string> = new Set(["deny", "allow", "allowAndName", "default"]);

/**
 * `Browser.setDownloadBehavior` for one /cdp connection, emulated: the caller's call never reaches Chrome (on the
 * hub's browser session its `eventsEnabled` is per session, so one caller's call would end download tracking for
 * every client). The client's downloads keep going to its own folder, counted against MAX_DOWNLOAD_BYTES; the caller
 * hears of them (`Browser.downloadWillBegin`, `downloadProgress`) when it asked for events, and "deny" has the hub
 * make the contexts of the connection's clients refuse them while it lasts (and cancels any that begins all the same).
 * Nothing outlives the connection.
 */
export class CdpDownloads {
  #connection: CdpConnection;
  #options: CdpDownloadsOptions;
  #behavior = "default";
  #eventsEnabled = false;
  /** The client's downloads under way that the caller was told of. */
  #told = new Set<string>();
  #listening = false;

  constructor(connection: CdpConnection, options: CdpDownloadsOptions) {
    this.#connection = connection;
    this.#options = options;
  }

  /**
   * Takes the caller's Browser.setDownloadBehavior (whatever context or path it names: the client's are used); a
   * "deny" is in force in Chrome when this resolves.
   */
  async set(params: Record<string, unknown>): Promise<object> {
    if (typeof params.behavior !== "string" || !BEHAVIORS.has(params.behavior))
      throw new CdpFailure(-32602, "behavior: must be one of deny, allow, allowAndName, default");
    const wasDenying = this.#behavior === "deny";
    this.#behavior = params.behavior;
    this.#eventsEnabled = params.eventsEnabled === true;
    if ((this.#behavior === "deny") !== wasDenying) await this.#options.refuse(!wasDenying);
    if (!this.#listening) {
      this.#listening = true;
      this.#connection.on("Browser.downloadWillBegin", this.#onWillBegin);
      this.#connection.on("Browser.downloadProgress", this.#onProgress);
    }
    return {};
  }

  /** Stops listening and asking for refusals (the connection ends). */
  dispose(): void {
    if (this.#behavior === "deny") void this.#options.refuse(false);
    this.#behavior = "default";
    if (!this.#listening) return;
    this.#connection.off("Browser.downloadWillBegin", this.#onWillBegin);
    this.#connection.off("Browser.downloadProgress", this.#onProgress);
    this.#told.clear();
  }

  #onWillBegin = (event: Protocol.Browser.DownloadWillBeginEvent): void => {
    if (!this.#options.isOwnPage(event.frameId)) return;
    if (this.#behavior === "deny") return this.#options.cancel(event);
    if (!this.#eventsEnabled) return;
    this.#told.add(event.guid);
    this.#options.emit({ method: "Browser.downloadWillBegin", params: event });
  };

  #onProgress = (event: Protocol.Browser.DownloadProgressEvent): void => {
    if (!this.#told.has(event.guid)) return;
    if (event.state !== "inProgress") this.#told.delete(event.guid);
    this.#options.emit({ method: "Browser.downloadProgress", params: event });
  };
}
