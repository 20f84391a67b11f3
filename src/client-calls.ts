/** A client's calls as hub.stats reports them. */
export interface CallFigures {
  calls: number;
  errors: number;
  /** Calls a second over the last ten seconds. */
  perSecond: number;
}

interface Counts {
  calls: number;
  errors: number;
  /** Calls in each of the last WINDOW seconds, by second modulo WINDOW. */
  seconds: number[];
  /** The second (since epoch) each slot of `seconds` counts. */
  stamps: number[];
}

const WINDOW = 10;
// Clients counted at once; past it the client counted longest ago is forgotten (a caller may name made-up clients).
const MAX_CLIENTS = 1_000;

/**
 * Calls answered per base client (the client of the call's `target`, or its `clientId`), and over the whole hub: a few
 * additions per call, read by hub.stats for the dashboard.
 */
export class ClientCalls {
  #byClient = new Map<string, Counts>();
  #hub: Counts = newCounts();

  /** One call answered; `about` is its target or clientId param, when it had one. */
  record(about: string | undefined, failed: boolean): void {
    const second = Math.floor(Date.now() / 1000);
    count(this.#hub, second, failed);
    if (about === undefined) return;
    const colon = about.indexOf(":");
    const clientId = colon === -1 ? about : about.slice(0, colon);
    let counts = this.#byClient.get(clientId);
    if (!counts) {
      if (this.#byClient.size >= MAX_CLIENTS) this.#byClient.delete(this.#byClient.keys().next().value as string);
      this.#byClient.set(clientId, (counts = newCounts()));
    }
    count(counts, second, failed);
  }

  /** Forgets a client that went (its context closed): a hub that sees many short clients keeps none of theirs. */
  forget(clientId: string): void {
    this.#byClient.delete(clientId);
  }

  /** A client's figures (zeros for one never called). */
  of(clientId: string): CallFigures {
    const counts = this.#byClient.get(clientId);
    return counts ? figures(counts) : { calls: 0, errors: 0, perSecond: 0 };
  }

  /** The whole hub's figures. */
  hub(): CallFigures {
    return figures(this.#hub);
  }
}

function newCounts(): Counts {
  return { calls: 0, errors: 0, seconds: new Array<number>(WINDOW).fill(0), stamps: new Array<number>(WINDOW).fill(0) };
}

function count(counts: Counts, second: number, failed: boolean): void {
  counts.calls++;
  if (failed) counts.errors++;
  const slot = second % WINDOW;
  if (counts.stamps[slot] !== second) {
    counts.stamps[slot] = second;
    counts.seconds[slot] = 0;
  }
  counts.seconds[slot] = (counts.seconds[slot] as number) + 1;
}

function figures(counts: Counts): CallFigures {
  const now = Math.floor(Date.now() / 1000);
  let recent = 0;
  // The last WINDOW whole seconds, not the one still running.
  for (let slot = 0; slot < WINDOW; slot++) {
    const stamp = counts.stamps[slot] as number;
    if (stamp < now && stamp >= now - WINDOW) recent += counts.seconds[slot] as number;
  }
  return { calls: counts.calls, errors: counts.errors, perSecond: Math.round((recent / WINDOW) * 10) / 10 };
}
