import { Worker } from "node:worker_threads";
import { HubError } from "../errors.js";

/** How long one regular expression may take on one URL before the call that gave it is refused. */
export const REGEX_MATCH_LIMIT_MS = 100;

// The worker's code: tests an expression (compiled once per source and flags) against a URL and says whether it matched.
const WORKER_CODE = `
const { parentPort } = require("node:worker_threads");
const compiled = new Map();
parentPort.on("message", ({ source, flags, url }) => {
  const key = flags + "/" + source;
  let expression = compiled.get(key);
  if (!expression) {
    if (compiled.size >= 256) compiled.clear();
    expression = new RegExp(source, flags);
    compiled.set(key, expression);
  }
  expression.lastIndex = 0;
  try {
    parentPort.postMessage({ matched: expression.test(url) });
  } catch (error) {
    parentPort.postMessage({ failed: String(error && error.message) });
  }
});
`;

interface Job {
  source: string;
  flags: string;
  url: string;
  resolve: (matched: boolean) => void;
  reject: (error: Error) => void;
}

/**
 * Tests callers' regular expressions against URLs on a thread of their own, one at a time, each within
 * REGEX_MATCH_LIMIT_MS: an expression that backtracks for minutes on a URL its caller chose would otherwise stall
 * the hub's event loop, and every other client with it. One past the limit has its worker stopped (V8 interrupts
 * the search) and its call refused; the next job gets a new worker.
 */
export class RegexWorker {
  #worker: Worker | null = null;
  #queue: Job[] = [];
  #current: Job | null = null;
  #timer: NodeJS.Timeout | undefined;
  /** Whether the current thread runs yet (the limit counts from then). */
  #online = false;

  /** Whether `/source/flags` matches `url`; INVALID_PARAMS when it searches longer than the limit. */
  test(source: string, flags: string, url: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ source, flags, url, resolve, reject });
      this.#next();
    });
  }

  /** Starts the thread ahead of the first URL, so the first match does not wait for it to boot. */
  warm(): void {
    this.#workerOf();
  }

  /** Stops the thread (it does not keep the process alive meanwhile); a later test starts another. */
  stop(): void {
    const worker = this.#worker;
    this.#worker = null;
    void worker?.terminate();
  }

  #next(): void {
    if (this.#current) return;
    const job = this.#queue.shift();
    if (!job) return;
    this.#current = job;
    const worker = this.#workerOf();
    worker.postMessage({ source: job.source, flags: job.flags, url: job.url });
    // The limit is the search's: a thread still starting (tens of milliseconds) starts the clock once it runs.
    if (this.#online) this.#startClock(job);
  }

  #startClock(job: Job): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#overrun(job), REGEX_MATCH_LIMIT_MS);
  }

  #workerOf(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_CODE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    // A thread that was stopped or failed answers nothing more: its late events are not the current job's.
    worker.on("message", (answer: { matched?: boolean; failed?: string }) => {
      if (this.#worker !== worker) return;
      this.#settle((job) =>
        answer.failed === undefined
          ? job.resolve(answer.matched === true)
          : job.reject(refused(job, `failed on the tab's URL (${answer.failed.slice(0, 200)})`)),
      );
    });
    const failed = (error: Error): void => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      this.#settle((job) => job.reject(error));
    };
    worker.on("error", (error) => failed(new HubError("INTERNAL_ERROR", `the hub's regular expression thread failed: ${error.message}`)));
    worker.on("exit", () => failed(new HubError("INTERNAL_ERROR", "the hub's regular expression thread stopped")));
    worker.once("online", () => {
      if (this.#worker !== worker) return;
      this.#online = true;
      if (this.#current) this.#startClock(this.#current);
    });
    // After the listeners: adding a "message" listener refs the worker again. The thread never keeps the hub alive.
    worker.unref();
    this.#worker = worker;
    this.#online = false;
    return worker;
  }

  #settle(answer: (job: Job) => void): void {
    const job = this.#current;
    if (!job) return;
    clearTimeout(this.#timer);
    this.#current = null;
    answer(job);
    this.#next();
  }

  #overrun(job: Job): void {
    if (this.#current !== job) return;
    this.stop();
    this.#settle((stopped) => stopped.reject(refused(stopped, `took more than ${REGEX_MATCH_LIMIT_MS} ms on the tab's URL`)));
  }
}

function refused(job: Job, why: string): HubError {
  const message = `invalid params for wait.for: the regular expression /${job.source.slice(0, 100)}/ ${why}; use a glob or a simpler expression`;
  return new HubError("INVALID_PARAMS", message, { errors: [{ path: "/url", message: why }] });
}

/** The hub's one regular expression thread. */
export const regexWorker = new RegexWorker();
