import { Worker } from "node:worker_threads";
import type { Budget } from "../budget.js";
import { HubError } from "../errors.js";
import { FairQueue } from "./fair-queue.js";

/** How long one regular expression may take on one URL before the call that gave it is refused. */
export const REGEX_MATCH_LIMIT_MS = 100;

/** How many URLs of one client may wait for the thread; a call past them is OVERLOADED. */
export const REGEX_QUEUE_PER_CLIENT = 16;

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

/** Whose call an expression is searched for: the client it takes turns as, and the call's budget (its end drops them). */
export interface RegexCaller {
  clientId: string;
  budget: Budget;
}

/** One call's expression, and why the call ended (then it searches nothing more). */
interface RegexCall {
  source: string;
  flags: string;
  clientId: string;
  ended: Error | null;
}

interface Job {
  call: RegexCall;
  url: string;
  resolve: (matched: boolean) => void;
  reject: (error: Error) => void;
}

// What the dropped searches of an answered call are rejected with: nobody hears it any more.
const ANSWERED = new HubError("CANCELLED", "the call was answered before this URL was searched");

/**
 * Tests callers' regular expressions against URLs on a thread of their own, one at a time, each within
 * REGEX_MATCH_LIMIT_MS: an expression that backtracks for minutes on a URL its caller chose would otherwise stall
 * the hub's event loop, and every other client with it. One past the limit has its worker stopped (V8 interrupts
 * the search) and its call refused; the next job gets a new worker. Clients take turns, one search each, with at most
 * REGEX_QUEUE_PER_CLIENT waiting: a client's runaway expressions delay another's search by one search, not by all of
 * theirs. The searches of a call that ended are dropped, and one running when the call timed out or was cancelled is
 * stopped.
 */
export class RegexWorker {
  #worker: Worker | null = null;
  #queue = new FairQueue<Job>(REGEX_QUEUE_PER_CLIENT);
  #current: Job | null = null;
  #timer: NodeJS.Timeout | undefined;
  /** Whether the current thread runs yet (the limit counts from then). */
  #online = false;

  /**
   * Whether `/source/flags` matches a URL, for one call: INVALID_PARAMS when it searches longer than the limit (and
   * for every URL after that), OVERLOADED when the caller's client has REGEX_QUEUE_PER_CLIENT URLs waiting already.
   */
  matcher(source: string, flags: string, caller: RegexCaller): (url: string) => Promise<boolean> {
    const call: RegexCall = { source, flags, clientId: caller.clientId, ended: null };
    const { budget } = caller;
    // A call that timed out or was cancelled frees the thread at once; an answered one lets its running search end
    // unheard (within the limit), since stopping the thread costs the next search a new one.
    budget.onEnd(() => this.#end(call, budget.reason as Error, true));
    budget.defer(() => this.#end(call, ANSWERED, false));
    return (url) => this.#test(call, url);
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

  #test(call: RegexCall, url: string): Promise<boolean> {
    if (call.ended) return Promise.reject(call.ended);
    return new Promise((resolve, reject) => {
      if (!this.#queue.push(call.clientId, { call, url, resolve, reject })) return reject(this.#overloaded(call));
      this.#next();
    });
  }

  #end(call: RegexCall, reason: Error, stopsSearch: boolean): void {
    if (call.ended) return;
    call.ended = reason;
    for (const job of this.#queue.drop(call.clientId, (queued) => queued.call === call)) job.reject(reason);
    if (!stopsSearch || this.#current?.call !== call) return;
    this.stop();
    this.#settle((job) => job.reject(reason));
    this.warm();
  }

  #next(): void {
    if (this.#current) return;
    const job = this.#queue.shift();
    if (!job) return;
    this.#current = job;
    const worker = this.#workerOf();
    worker.postMessage({ source: job.call.source, flags: job.call.flags, url: job.url });
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
          : this.#refuse(job, refused(job.call, `failed on the tab's URL (${answer.failed.slice(0, 200)})`)),
      );
    });
    const failed = (error: Error): void => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      this.#settle((job) => this.#refuse(job, error));
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
    // After what ends in the same turn: a closed connection cancels all its calls in one loop, and the next search
    // must not be one of theirs, started on a new thread only to be stopped again.
    queueMicrotask(() => this.#next());
  }

  /** Refuses the job's call: the other URLs it waits on are not searched, since the call fails anyway. */
  #refuse(job: Job, error: Error): void {
    job.reject(error);
    this.#end(job.call, error, false);
  }

  #overrun(job: Job): void {
    if (this.#current !== job) return;
    this.stop();
    this.#settle((stopped) => this.#refuse(stopped, refused(stopped.call, `took more than ${REGEX_MATCH_LIMIT_MS} ms on the tab's URL`)));
    // The next search, of this client or another, does not wait for a thread to boot.
    this.warm();
  }

  #overloaded(call: RegexCall): HubError {
    // The client's next turn comes after at most one search of each client in line.
    const retryAfterMs = this.#queue.clients * REGEX_MATCH_LIMIT_MS;
    const message = `client ${call.clientId} has ${REGEX_QUEUE_PER_CLIENT} URLs waiting for the hub's regular expression thread, its most; retry in ${retryAfterMs} ms, or use a glob`;
    return new HubError("OVERLOADED", message, { retryAfterMs });
  }
}

function refused(call: RegexCall, why: string): HubError {
  const message = `invalid params for wait.for: the regular expression /${call.source.slice(0, 100)}/ ${why}; use a glob or a simpler expression`;
  return new HubError("INVALID_PARAMS", message, { errors: [{ path: "/url", message: why }] });
}

/** The hub's one regular expression thread. */
export const regexWorker = new RegexWorker();
