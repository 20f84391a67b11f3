/**
 * Jobs of many clients for one worker, served one job per client in turn, each client holding at most
 * `perClient` waiting jobs: a client that queues a hundred jobs delays another's next job by one of its own, not a
 * hundred.
 */
export class FairQueue<T> {
  readonly #perClient: number;
  // The clients with waiting jobs, in the order of their turns (a Map keeps insertion order).
  #clients = new Map<string, T[]>();
  #lastServed: string | undefined;

  /** A queue holding at most `perClient` waiting jobs of each client. */
  constructor(perClient: number) {
    this.#perClient = perClient;
  }

  /** Queues `job` for `clientId`; false, queueing nothing, when the client has its `perClient` jobs waiting already. */
  push(clientId: string, job: T): boolean {
    const jobs = this.#clients.get(clientId);
    if (!jobs) {
      this.#clients.set(clientId, [job]);
      return true;
    }
    if (jobs.length >= this.#perClient) return false;
    jobs.push(job);
    return true;
  }

  /** The next job: the oldest of the client whose turn it is; that client's next turn comes after every other's. */
  shift(): T | undefined {
    const clientId = this.#nextClient();
    if (clientId === undefined) return undefined;
    const jobs = this.#clients.get(clientId) as T[];
    const job = jobs.shift();
    this.#clients.delete(clientId);
    if (jobs.length > 0) this.#clients.set(clientId, jobs);
    this.#lastServed = clientId;
    return job;
  }

  /** Removes the waiting jobs of `clientId` that `isDropped` picks and returns them. */
  drop(clientId: string, isDropped: (job: T) => boolean): T[] {
    const jobs = this.#clients.get(clientId);
    if (!jobs) return [];
    const dropped = jobs.filter(isDropped);
    if (dropped.length === 0) return [];
    const kept = jobs.filter((job) => !isDropped(job));
    if (kept.length > 0) this.#clients.set(clientId, kept);
    else this.#clients.delete(clientId);
    return dropped;
  }

  /** How many jobs wait, of every client. */
  get size(): number {
    let size = 0;
    for (const jobs of this.#clients.values()) size += jobs.length;
    return size;
  }

  /** How many clients have jobs waiting. */
  get clients(): number {
    return this.#clients.size;
  }

  // The first client in line, but not the one just served while another waits: a client whose first job arrives while
  // another's runs is next, not behind that client's second job.
  #nextClient(): string | undefined {
    let first: string | undefined;
    for (const clientId of this.#clients.keys()) {
      if (clientId !== this.#lastServed) return clientId;
      first ??= clientId;
    }
    return first;
  }
}
