/**
 * Runs a task one at a time so that every request is answered by a run that started after it: many requests
 * while a run is going share the next run.
 */
export class SerialRunner {
  #task: () => Promise<void>;
  #onError: (error: unknown) => void;
  #running = false;
  #waiting: (() => void)[] = [];

  constructor(task: () => Promise<void>, onError: (error: unknown) => void) {
    this.#task = task;
    this.#onError = onError;
  }

  /** Resolves (never rejects) once a run that started after this call has finished. */
  request(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#running) void this.#loop();
    });
  }

  async #loop(): Promise<void> {
    this.#running = true;
    while (this.#waiting.length > 0) {
      const waiters = this.#waiting.splice(0);
      try {
        await this.#task();
      } catch (error) {
        this.#onError(error);
      }
      for (const resolve of waiters) resolve();
    }
    this.#running = false;
  }
}
