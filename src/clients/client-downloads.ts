import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Protocol } from "devtools-protocol";
import type { Browser } from "../cdp/browser.js";
import { log } from "../log.js";
import type { Download, Notifications } from "../protocol/types.js";
import type { ClientManager } from "./client-manager.js";

type DownloadMethod = "download.started" | "download.finished" | "download.removed";

/** What the downloads tell: a download began (from which tab), ended or went, for the client it belongs to (the downloads topic). */
export type DownloadNotice = <N extends DownloadMethod>(
  clientId: string,
  notice: { method: N; params: Notifications[N] },
  tabId?: string,
) => void;

interface Options {
  /** Whether Chrome is the hub's own: only then are its default context's downloads (DEFAULT_CLIENT_ID's) taken. */
  embedded: boolean;
  dataDir: string;
  maxBytes: number;
  ttlMs: number;
  notify: DownloadNotice;
}

const SET_TIMEOUT_MS = 5_000;

/**
 * Downloads, a folder per client under DATA_DIR/downloads: each client's browser context saves its downloads into its
 * own folder (named by Chrome's id, never by the page's name), a download past MAX_DOWNLOAD_BYTES (or one taking the
 * client's downloads, running and kept, past it) is cancelled, and a finished one is removed after DOWNLOAD_TTL_MS.
 * A download is only ever listed for, and given to, its own client.
 */
export class ClientDownloads {
  #browser: Browser;
  #clients: ClientManager;
  #options: Options;
  #byId = new Map<string, Download>();
  #timers = new Map<string, NodeJS.Timeout>();
  /** Clients whose context refuses downloads, with how many /cdp connections of theirs asked for it. */
  #refusals = new Map<string, number>();
  /** Folders of clients whose context went, being removed: a context made again meanwhile waits for it. */
  #removing = new Map<string, Promise<void>>();

  constructor(browser: Browser, clients: ClientManager, options: Options) {
    this.#browser = browser;
    this.#clients = clients;
    this.#options = options;
    browser.on("connected", () => this.#onConnected());
    if (browser.isUp) this.#onConnected();
    clients.contexts.on("opened", (clientId) => void this.#allow(clientId));
    clients.contexts.on("closed", (clientId) => this.#removeFolder(clientId));
  }

  /** The folder of a client's downloads. */
  folderOf(clientId: string): string {
    return path.join(this.#options.dataDir, "downloads", clientId);
  }

  /**
   * Makes a client's context refuse downloads while at least one /cdp connection of the client asks for it (its
   * `Browser.setDownloadBehavior` "deny"): Chrome then cancels each one before writing it, and says so, which a cancel
   * sent once the download began cannot promise (a small one is done by then). Undone by `refused: false`.
   */
  async refuse(clientId: string, refused: boolean): Promise<void> {
    const count = (this.#refusals.get(clientId) ?? 0) + (refused ? 1 : -1);
    if (count > 0) this.#refusals.set(clientId, count);
    else this.#refusals.delete(clientId);
    if (count !== (refused ? 1 : 0)) return;
    await this.#allow(clientId === this.#clients.defaultClientId ? null : clientId);
  }

  /** A client's downloads, oldest first. */
  list(clientId: string): Download[] {
    return [...this.#byId.values()].filter((download) => download.clientId === clientId);
  }

  /** One download, if `canSee` reaches its client. */
  get(downloadId: string, canSee: (clientId: string) => boolean): Download | undefined {
    const download = this.#byId.get(downloadId);
    return download && canSee(download.clientId) ? download : undefined;
  }

  /** Where a completed download's file is. */
  fileOf(download: Download): string {
    return path.join(this.folderOf(download.clientId), download.downloadId);
  }

  /** Removes every download's file (the hub stops). */
  async removeAll(): Promise<void> {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await rm(path.join(this.#options.dataDir, "downloads"), { recursive: true, force: true });
  }

  #onConnected(): void {
    const connection = this.#browser.connection();
    connection.on("Browser.downloadWillBegin", (event) => this.#began(event));
    connection.on("Browser.downloadProgress", (event) => void this.#progressed(event));
    // Chrome's default context is the default client's, when the Chrome is the hub's own (with CDP_URL it is the user's
    // browsing, whose downloads stay Chrome's); every other client's context is set as it is made.
    if (this.#options.embedded) void this.#allow(null);
  }

  /**
   * Lets a client's context (null: Chrome's default one) download, into the client's own folder, or refuses its
   * downloads while the client asks for it (`refuse`); events stay on for the hub's session either way.
   */
  async #allow(clientId: string | null): Promise<void> {
    const owner = clientId ?? this.#clients.defaultClientId;
    const context = clientId === null ? {} : this.#clients.contexts.existing(clientId);
    // With CDP_URL, Chrome's default context is the user's browsing: its downloads stay Chrome's.
    if (context === null || (clientId === null && !this.#options.embedded)) return;
    try {
      await this.#removing.get(owner);
      const downloadPath = this.folderOf(owner);
      await mkdir(downloadPath, { recursive: true, mode: 0o700 });
      const behavior = this.#refusals.has(owner)
        ? { behavior: "deny" as const, eventsEnabled: true, ...context }
        : { behavior: "allowAndName" as const, downloadPath, eventsEnabled: true, ...context };
      await this.#browser.connection().send("Browser.setDownloadBehavior", behavior, { timeoutMs: SET_TIMEOUT_MS });
    } catch (error) {
      log.warn("cannot let a client's context download", { clientId: owner, error: (error as Error).message });
    }
  }

  #began(event: Protocol.Browser.DownloadWillBeginEvent): void {
    // A page's main frame has the page's id: the download is its tab's client's. One an iframe starts is saved in its
    // client's folder all the same, but not listed (Chrome does not say whose frame it is).
    const page = this.#browser.page(event.frameId);
    if (!page) return void log.warn("a download started by an iframe is not listed", { url: event.url });
    const clientId = this.#clients.ownerOf(page.tabId);
    const download: Download = {
      downloadId: event.guid,
      clientId,
      url: event.url,
      filename: event.suggestedFilename,
      state: "inProgress",
      receivedBytes: 0,
      totalBytes: 0,
      startedAt: Date.now(),
    };
    this.#byId.set(event.guid, download);
    const params = { downloadId: event.guid, clientId, url: event.url, filename: download.filename };
    this.#options.notify(clientId, { method: "download.started", params }, page.tabId);
  }

  async #progressed(event: Protocol.Browser.DownloadProgressEvent): Promise<void> {
    const download = this.#byId.get(event.guid);
    if (!download || download.state !== "inProgress") return;
    download.receivedBytes = event.receivedBytes;
    download.totalBytes = event.totalBytes;
    // Checked at every step, so that downloads running at once cannot pass the cap together: the one whose progress
    // takes the client's sum past it goes (a completed one too, when its last step is the one that does).
    if (event.state !== "canceled" && this.#claimedBy(download.clientId) > this.#options.maxBytes) return this.#cancel(download);
    if (event.state === "inProgress") return;
    download.state = event.state;
    if (event.state === "completed") download.sha256 = await sha256Of(this.fileOf(download)).catch(() => undefined);
    this.#finish(download, event.state);
  }

  /**
   * The bytes a client's downloads hold or will: a kept one its file, one in progress what it has received, or its
   * whole size when Chrome knows it up front (so a download that cannot fit goes at its first step).
   */
  #claimedBy(clientId: string): number {
    let sum = 0;
    for (const download of this.#byId.values()) {
      if (download.clientId !== clientId) continue;
      if (download.state === "completed") sum += download.receivedBytes;
      else if (download.state === "inProgress") sum += Math.max(download.receivedBytes, download.totalBytes);
    }
    return sum;
  }

  async #cancel(download: Download): Promise<void> {
    const max = this.#options.maxBytes;
    download.reason = `over MAX_DOWNLOAD_BYTES (${max} bytes for a download, and for a client's downloads together, running and kept)`;
    // Set before the command goes, so that the next download's step no longer counts this one.
    download.state = "canceled";
    const context = this.#clients.contexts.existing(download.clientId) ?? {};
    await this.#browser
      .connection()
      .send("Browser.cancelDownload", { guid: download.downloadId, ...context }, { timeoutMs: SET_TIMEOUT_MS })
      .catch(() => undefined);
    this.#finish(download, "canceled");
  }

  #finish(download: Download, state: "completed" | "canceled"): void {
    download.finishedAt = Date.now();
    const { downloadId, clientId, receivedBytes: bytes, sha256, reason } = download;
    const params = { downloadId, clientId, state, bytes, ...(sha256 ? { sha256 } : {}), ...(reason ? { reason } : {}) };
    this.#options.notify(clientId, { method: "download.finished", params });
    // A cancelled download's part goes at once; its entry stays listed, as a finished one's, for DOWNLOAD_TTL_MS.
    if (state !== "completed") void rm(this.fileOf(download), { force: true });
    const timer = setTimeout(() => void this.#expire(downloadId), this.#options.ttlMs);
    timer.unref();
    this.#timers.set(downloadId, timer);
  }

  async #expire(downloadId: string): Promise<void> {
    const download = this.#byId.get(downloadId);
    this.#timers.delete(downloadId);
    if (!download) return;
    this.#byId.delete(downloadId);
    await rm(this.fileOf(download), { force: true });
    this.#options.notify(download.clientId, { method: "download.removed", params: { downloadId, clientId: download.clientId } });
    if (!this.#clients.contexts.has(download.clientId)) this.#removeFolder(download.clientId);
  }

  /**
   * Removes the folder of a client whose context went, once it lists no download (a kept one stays until its
   * DOWNLOAD_TTL_MS; the last to go takes the folder): a hub that serves short-lived clients for weeks keeps no
   * folder per client that ever was. The default client's folder is Chrome's default context's, kept.
   */
  #removeFolder(clientId: string): void {
    if (clientId === this.#clients.defaultClientId || this.list(clientId).length > 0 || this.#removing.has(clientId)) return;
    const removing = rm(this.folderOf(clientId), { recursive: true, force: true })
      .catch((error: Error) => void log.warn("cannot remove a client's downloads folder", { clientId, error: error.message }))
      .finally(() => this.#removing.delete(clientId));
    this.#removing.set(clientId, removing);
  }
}

function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", reject);
  });
}
