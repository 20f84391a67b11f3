import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BrowserEvents } from "../cdp/browser.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";

/** A file a caller uploads: its name as the page will see it, and its bytes. */
export interface UploadFile {
  name: string;
  data: Buffer;
}

/** Where tab events come from (the Browser). */
interface TabEvents {
  on(event: "pageDestroyed", listener: (...args: BrowserEvents["pageDestroyed"]) => void): unknown;
  on(event: "pageCrashed", listener: (...args: BrowserEvents["pageCrashed"]) => void): unknown;
}

const MAX_NAME_LENGTH = 200;

/**
 * The hub's own folder for uploaded files (`tabwire-uploads-*` in the OS temp folder, readable by the hub's user
 * only): a folder per tab, a folder per upload in it so that names never collide, removed when the tab closes or
 * crashes and all of it when the hub stops. Chrome reads the files from here (DOM.setFileInputFiles takes paths), so
 * a caller on another machine can upload, and never names a path of the hub's machine.
 */
export class UploadFolder {
  #root: Promise<string> | null = null;
  #tabs = new Map<string, string>();
  #bytes = new Map<string, number>();
  #uploads = 0;
  #maxBytesPerTab: number;

  constructor(tabs: TabEvents, maxBytesPerTab: number) {
    this.#maxBytesPerTab = maxBytesPerTab;
    tabs.on("pageDestroyed", (tabId) => this.release(tabId));
    tabs.on("pageCrashed", (tabId) => this.release(tabId));
  }

  /** Writes one upload's files for a tab and returns their paths, in order; OVERLOADED past the tab's quota. */
  async write(tabId: string, files: readonly UploadFile[]): Promise<string[]> {
    const bytes = files.reduce((sum, file) => sum + file.data.length, 0) + (this.#bytes.get(tabId) ?? 0);
    if (bytes > this.#maxBytesPerTab) {
      throw new HubError(
        "OVERLOADED",
        `this tab holds ${this.#maxBytesPerTab} bytes of uploads at most (MAX_UPLOAD_BYTES); close it to free them`,
      );
    }
    this.#bytes.set(tabId, bytes);
    const root = await (this.#root ??= mkdtemp(path.join(os.tmpdir(), "tabwire-uploads-")));
    const tabFolder = path.join(root, safeName(tabId));
    this.#tabs.set(tabId, tabFolder);
    const folder = path.join(tabFolder, String(++this.#uploads));
    await mkdir(folder, { recursive: true, mode: 0o700 });
    return Promise.all(
      files.map(async (file, index) => {
        // Two files of one upload with the same name keep both: the later one in a folder of its own.
        const at =
          files.findIndex((other) => safeName(other.name) === safeName(file.name)) === index ? folder : path.join(folder, `${index}`);
        await mkdir(at, { recursive: true, mode: 0o700 });
        const filePath = path.join(at, safeName(file.name));
        await writeFile(filePath, file.data, { mode: 0o600 });
        return filePath;
      }),
    );
  }

  /** The folder holding a tab's uploads, if it has any. */
  folderOf(tabId: string): string | undefined {
    return this.#tabs.get(tabId);
  }

  /** Removes a tab's uploads, at once: when tabs.close answers they are gone (a few files, at most MAX_PAYLOAD). */
  release(tabId: string): void {
    const folder = this.#tabs.get(tabId);
    if (!folder) return;
    this.#tabs.delete(tabId);
    this.#bytes.delete(tabId);
    try {
      rmSync(folder, { recursive: true, force: true });
    } catch (error) {
      log.warn("cannot remove uploads", { tabId, error: (error as Error).message });
    }
  }

  /** Removes every upload (the hub stops). */
  async removeAll(): Promise<void> {
    const root = this.#root;
    this.#root = null;
    this.#tabs.clear();
    this.#bytes.clear();
    if (root) await rm(await root, { recursive: true, force: true }).catch(() => {});
  }
}

/** A file name that stays in its folder: no separators, no leading dots, no control characters, bounded. */
export function safeName(name: string): string {
  const base = name
    .replace(/[\\/]/g, "_")
    .replace(/\p{Cc}/gu, "")
    .replace(/^\.+/, "")
    .slice(0, MAX_NAME_LENGTH);
  return base === "" ? "file" : base;
}
