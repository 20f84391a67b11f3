import { chmod, mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

let writes = 0;

/**
 * A file only its owner may read (0600, in a 0700 folder), replaced whole on each write (a temporary file renamed
 * over it), so a hub killed mid-write leaves the old text or the new, never half of one. Writes coalesce: while one
 * runs, the next waits and only the newest text is written.
 */
export class AtomicFile {
  readonly path: string;
  #running: Promise<void> | null = null;
  #next: { text: string; written: Promise<void>; settle: (error?: Error) => void } | null = null;

  constructor(file: string) {
    this.path = file;
  }

  /** Resolves once `text` (or a newer text) is on disk. */
  write(text: string): Promise<void> {
    if (this.#next) {
      this.#next.text = text;
      return this.#next.written;
    }
    let settle: (error?: Error) => void = () => {};
    const written = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
    this.#next = { text, written, settle };
    if (!this.#running) this.#drain();
    return written;
  }

  /** Removes the file; resolves once it is gone. */
  async remove(): Promise<void> {
    await this.#running;
    await rm(this.path, { force: true });
  }

  #drain(): void {
    const next = this.#next;
    if (!next) {
      this.#running = null;
      return;
    }
    this.#next = null;
    this.#running = this.#replace(next.text).then(
      () => next.settle(),
      (error: Error) => next.settle(error),
    );
    void this.#running.then(() => this.#drain());
  }

  async #replace(text: string): Promise<void> {
    const folder = path.dirname(this.path);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    // A name of its own for each write: two writers of one path (two AtomicFile objects, two calls that made the
    // client persistent at once) never rename each other's temporary file away.
    const temporary = `${this.path}.${process.pid}.${++writes}.tmp`;
    try {
      await writeFile(temporary, text, { mode: 0o600 });
      // The mode of writeFile is masked by the umask and ignored for a file left behind by a killed hub.
      await chmod(temporary, 0o600);
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}
