import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { HubError } from "../errors.js";
import { AtomicFile } from "./atomic-file.js";

/** Where persistent clients' saved states are kept: DATA_DIR on a single hub, Redis in a cluster. */
export interface StateStore {
  /** The clients this hub keeps from its start (every one saved in DATA_DIR; none in a cluster until it takes one). */
  keptAtStart(): string[];
  /** Takes a client for this hub before its state is first written; false when another hub (a cluster's) keeps it. */
  take(clientId: string): Promise<boolean>;
  /** A client's saved state, or null when there is none. */
  read(clientId: string): Promise<string | null>;
  /**
   * Replaces a client's saved state; rejects when it could not be written, with ClientRemovedError when the client
   * was made not persistent meanwhile (through another instance of a cluster).
   */
  write(clientId: string, text: string): Promise<void>;
  /** Removes a client's saved state. */
  remove(clientId: string): Promise<void>;
}

/** A client's state was not written: it is no longer persistent (made so through another hub instance). */
export class ClientRemovedError extends Error {
  constructor(clientId: string) {
    super(`client ${clientId} was made not persistent through another hub instance`);
    this.name = "ClientRemovedError";
  }
}

/**
 * Saved states as files, DATA_DIR/persistent/<clientId>.json (0600, replaced atomically): one file object per
 * client, so writes and a removal from two calls at once are done in the order they came.
 */
export class FileStates implements StateStore {
  #folder: string;
  #files = new Map<string, AtomicFile>();

  constructor(dataDir: string) {
    this.#folder = path.join(dataDir, "persistent");
  }

  keptAtStart(): string[] {
    try {
      return readdirSync(this.#folder)
        .filter((name) => name.endsWith(".json"))
        .map((name) => name.slice(0, -".json".length));
    } catch {
      return [];
    }
  }

  async take(): Promise<boolean> {
    return true;
  }

  async read(clientId: string): Promise<string | null> {
    try {
      return await readFile(this.#file(clientId).path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  write(clientId: string, text: string): Promise<void> {
    return this.#file(clientId).write(text);
  }

  async remove(clientId: string): Promise<void> {
    await this.#file(clientId).remove();
    this.#files.delete(clientId);
  }

  // A client id has no "/" (its schema's pattern), so it is one name inside the folder.
  #file(clientId: string): AtomicFile {
    let file = this.#files.get(clientId);
    if (!file) this.#files.set(clientId, (file = new AtomicFile(path.join(this.#folder, `${clientId}.json`))));
    return file;
  }
}

/** The store of a cluster's instance until it has joined the cluster (whose Redis then keeps the states). */
export class NoStates implements StateStore {
  keptAtStart(): string[] {
    return [];
  }

  async take(): Promise<boolean> {
    throw new HubError("BROWSER_UNAVAILABLE", "this hub instance has not joined its cluster yet; retry in a moment");
  }

  async read(): Promise<string | null> {
    return null;
  }

  async write(): Promise<void> {
    throw new Error("this hub instance has not joined its cluster yet");
  }

  async remove(): Promise<void> {}
}
