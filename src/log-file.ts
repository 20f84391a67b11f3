import { closeSync, existsSync, fchmodSync, fstatSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

// Readable by the operator only: the lines name peers, clients and targets.
const FILE_MODE = 0o600;

/**
 * An append-only file of lines for the log written on every call (api.log): entries are queued and, every `flushMs`
 * (or once `maxPending` wait), turned into lines and written together in one system call, so a call pays for an
 * array push, not for a stream pipeline, a JSON.stringify and a write (a write per call was a twentieth of the hub's
 * CPU on a sequential evaluate loop). Writes are synchronous, as pino's are: a write of a few KB to the page cache
 * costs less than a round trip through libuv's thread pool. `close` writes what is queued; a process that is killed
 * loses at most `flushMs` of lines. Past `maxBytes` the file rolls over like winston's tailable files: the newest
 * lines are always in `name`, older ones in name1 ... name{maxFiles-1}.
 */
export class LogFile<T> {
  readonly filename: string;
  #maxBytes: number;
  #maxFiles: number;
  #fd: number;
  #size: number;
  #pending: T[] = [];
  #format: (entry: T) => string;
  #flushing: NodeJS.Timeout | null = null;
  #flushMs: number;
  #maxPending: number;
  #onError: (error: Error) => void;
  #failed = false;

  /**
   * Opens (appends to) `filename`; `format` makes an entry's line (without its newline); `onError` hears of the
   * first write that fails (the lines of that turn are lost).
   */
  constructor(
    filename: string,
    options: {
      format: (entry: T) => string;
      maxBytes: number;
      maxFiles: number;
      onError: (error: Error) => void;
      /** How long an entry may wait to be written. */
      flushMs: number;
      /** How many entries may wait: the next one writes them at once. */
      maxPending: number;
    },
  ) {
    this.#flushMs = options.flushMs;
    this.#maxPending = options.maxPending;
    this.filename = filename;
    this.#format = options.format;
    this.#maxBytes = options.maxBytes;
    this.#maxFiles = options.maxFiles;
    this.#onError = options.onError;
    this.#fd = openSync(filename, "a", FILE_MODE);
    // A file left by an older version keeps its mode when opened again.
    fchmodSync(this.#fd, FILE_MODE);
    this.#size = fstatSync(this.#fd).size;
  }

  /** Queues one entry, written within `flushMs`. */
  write(entry: T): void {
    if (this.#fd < 0) return;
    if (this.#pending.push(entry) >= this.#maxPending) return this.flush();
    if (this.#flushing) return;
    this.#flushing = setTimeout(() => this.flush(), this.#flushMs);
    // Lines waiting to be written never keep a process alive; close() writes them.
    this.#flushing.unref();
  }

  /** Writes what is queued now. */
  flush(): void {
    if (this.#flushing) clearTimeout(this.#flushing);
    this.#flushing = null;
    if (this.#pending.length === 0 || this.#fd < 0) return;
    const entries = this.#pending;
    this.#pending = [];
    try {
      const text = `${entries.map(this.#format).join("\n")}\n`;
      const bytes = Buffer.byteLength(text);
      if (this.#size > 0 && this.#size + bytes > this.#maxBytes) this.#rollOver();
      writeSync(this.#fd, text);
      this.#size += bytes;
      this.#failed = false;
    } catch (error) {
      if (!this.#failed) this.#onError(error as Error);
      this.#failed = true;
    }
  }

  /** Writes what is queued and closes the file; later lines are dropped. */
  close(): void {
    this.flush();
    if (this.#fd < 0) return;
    closeSync(this.#fd);
    this.#fd = -1;
  }

  // name{n-2} -> name{n-1}, ..., name -> name1, then a new empty name.
  #rollOver(): void {
    closeSync(this.#fd);
    this.#fd = -1;
    const { dir, name, ext } = path.parse(this.filename);
    const numbered = (n: number): string => (n === 0 ? this.filename : path.join(dir, `${name}${n}${ext}`));
    try {
      rmSync(numbered(this.#maxFiles - 1), { force: true });
      for (let n = this.#maxFiles - 2; n >= 0; n--) if (existsSync(numbered(n))) renameSync(numbered(n), numbered(n + 1));
    } finally {
      this.#fd = openSync(this.filename, "a", FILE_MODE);
      this.#size = fstatSync(this.#fd).size;
    }
  }
}
