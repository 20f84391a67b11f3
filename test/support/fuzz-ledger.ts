import { ANY_OUTCOME, CODES, keyOf, type FuzzFrame, type Outcome } from "./fuzz-rules.js";

// Calls on the fuzzer's tab that time out one after another: the tab no longer runs anything.
const WEDGED_AFTER_TIMEOUTS = 25;

/** Something the fuzzer saw that breaks the contract. */
export interface Finding {
  kind: "missing" | "unexpected" | "wrong" | "leak" | "shape" | "closed" | "stalled" | "wedged" | "control" | "crash";
  frame?: number;
  category?: string;
  sent?: string;
  answer?: string;
}

interface Pending {
  frame: number;
  category: string;
  data: string | Buffer;
  outcome: Outcome;
  isRequest: boolean;
  /** Another frame owed a response with the same id while this one was: the hub may refuse the later one (-32600). */
  shared: boolean;
  sentAt: number;
}

export interface Response {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  result?: unknown;
  error?: { code?: unknown };
}

/** A short printable form of a frame for a report; of a batch, the item with the answer's id. */
function preview(data: string | Buffer, key?: string): string {
  if (typeof data !== "string") return `binary ${data.length} bytes: ${data.subarray(0, 48).toString("hex")}`;
  const item = key === undefined ? undefined : batchItem(data, key);
  if (item !== undefined) return `(an item of a batch of ${data.length} chars) ${JSON.stringify(item.slice(0, 300))}`;
  const shown = JSON.stringify(data.slice(0, 300));
  return data.length > 300 ? `${shown}... (${data.length} chars)` : shown;
}

function batchItem(text: string, key: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return undefined;
    const item: unknown = value.find(
      (entry: { id?: unknown } | null) => typeof entry === "object" && entry !== null && keyOf(entry.id) === key,
    );
    return item === undefined ? undefined : JSON.stringify(item);
  } catch {
    return undefined;
  }
}

/** Whether a response is what `pending` was owed: strictly, or as any request may be answered (OVERLOADED, CANCELLED, a refused shared id). */
function accepts(pending: Pending, response: Response, lenient: boolean): boolean {
  if (response.jsonrpc !== "2.0" || "result" in response === "error" in response) return false;
  if ("result" in response) return pending.outcome.result;
  const code = response.error?.code;
  if (typeof code !== "number") return false;
  if (!lenient) return pending.outcome.codes.includes(code);
  if (!pending.isRequest) return false;
  return code === CODES.OVERLOADED || code === CODES.CANCELLED || (pending.shared && code === CODES.INVALID_REQUEST);
}

/** Every response the hub owes, by id; each answer is matched to one, and what is left at the end is missing. */
export class AnswerLedger {
  readonly findings: Finding[] = [];
  readonly outcomes = new Map<string, number>();
  /** Time to answer by category: total and slowest, in ms. */
  readonly latency = new Map<string, { count: number; totalMs: number; maxMs: number }>();
  readonly frames = { objects: 0, arrays: 0, expectedObjects: 0, expectedArrays: 0, notifications: 0 };
  #pending = new Map<string, Pending[]>();
  #outstanding = 0;
  /** Frames working on the fuzzer's tab, by index, with the responses each still owes. */
  #tabFrames = new Map<number, number>();
  #wake: (() => void)[] = [];
  /** The last frames sent to the fuzzer's tab, to show what came before it stopped answering. */
  #recentTabFrames: { frame: number; data: string | Buffer }[] = [];
  #timeoutStreak = 0;
  /** Set once the fuzzer's tab has answered WEDGED_AFTER_TIMEOUTS calls in a row with TIMEOUT. */
  wedged = false;

  constructor(private readonly forbidden: string) {}

  get outstanding(): number {
    return this.#outstanding;
  }

  /** Frames that make the browser work on the fuzzer's tab and are not fully answered yet. */
  get tabOutstanding(): number {
    return this.#tabFrames.size;
  }

  /** Records what a frame about to be sent is owed. */
  expect(frame: FuzzFrame): void {
    if (frame.expect.shape === "object") this.frames.expectedObjects++;
    if (frame.expect.shape === "array") this.frames.expectedArrays++;
    if (frame.touchesTab && frame.expect.owed.length > 0) {
      this.#tabFrames.set(frame.index, frame.expect.owed.length);
      this.#recentTabFrames.push({ frame: frame.index, data: frame.data });
      if (this.#recentTabFrames.length > 40) this.#recentTabFrames.shift();
    }
    for (const owed of frame.expect.owed) {
      const list = this.#pending.get(owed.key) ?? [];
      for (const other of list) other.shared = true;
      const { outcome, isRequest } = owed;
      list.push({
        frame: frame.index,
        category: frame.category,
        data: frame.data,
        outcome,
        isRequest,
        shared: list.length > 0,
        sentAt: performance.now(),
      });
      this.#pending.set(owed.key, list);
      this.#outstanding++;
    }
  }

  /** Whether a response with this id (other than null) is still owed: a frame reusing it waits, so that answers pair up. */
  owesAnyOf(frame: FuzzFrame): boolean {
    return frame.expect.owed.some((owed) => owed.key !== "null" && this.#pending.has(owed.key));
  }

  /** Takes one frame from the hub. */
  receive(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.findings.push({ kind: "shape", answer: `not JSON: ${text.slice(0, 200)}` });
      return;
    }
    if (Array.isArray(value)) {
      this.frames.arrays++;
      if (value.length === 0) this.findings.push({ kind: "shape", answer: "an empty array" });
      this.#match(value as Response[]);
    } else if (typeof (value as Response).method === "string" && !Object.hasOwn(value as object, "id")) {
      this.frames.notifications++;
      this.#checkLeak(text);
    } else {
      this.frames.objects++;
      this.#match([value as Response]);
    }
    for (const wake of this.#wake.splice(0)) wake();
  }

  /** Resolves at the next frame from the hub; rejects after `ms` without one. */
  nextAnswer(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      this.#wake.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Wakes every waiter at once (the socket closed). */
  interrupt(): void {
    for (const wake of this.#wake.splice(0)) wake();
  }

  /**
   * Waits until every owed response came, or none came for `stallMs` (however long the answers take in all, as long
   * as they keep coming); what is still owed becomes "missing".
   */
  async drain(stallMs: number): Promise<void> {
    while (this.#outstanding > 0) {
      const moved = await this.nextAnswer(stallMs).then(
        () => true,
        () => false,
      );
      if (!moved) break;
    }
    for (const [key, list] of this.#pending)
      for (const p of list) this.findings.push({ kind: "missing", frame: p.frame, category: p.category, sent: preview(p.data, key) });
    this.#pending.clear();
  }

  #time(pending: Pending): void {
    const ms = performance.now() - pending.sentAt;
    const entry = this.latency.get(pending.category) ?? { count: 0, totalMs: 0, maxMs: 0 };
    entry.count++;
    entry.totalMs += ms;
    entry.maxMs = Math.max(entry.maxMs, ms);
    this.latency.set(pending.category, entry);
  }

  #noteTabAnswer(pending: Pending, response: Response): void {
    this.#timeoutStreak = response.error?.code === CODES.TIMEOUT ? this.#timeoutStreak + 1 : 0;
    if (this.wedged || this.#timeoutStreak < WEDGED_AFTER_TIMEOUTS) return;
    this.wedged = true;
    const before = this.#recentTabFrames.filter((f) => f.frame < pending.frame).slice(-8);
    const sent = before.map((f) => `#${f.frame} ${preview(f.data)}`).join("\n        ");
    const answer = `${WEDGED_AFTER_TIMEOUTS} calls on the fuzzer's tab in a row answered TIMEOUT, up to frame #${pending.frame}; the tab frames sent before:`;
    this.findings.push({ kind: "wedged", frame: pending.frame, category: pending.category, answer, sent: `\n        ${sent}` });
  }

  /** A result or a notification that names the other client's tab; an error may quote the target the fuzzer sent. */
  #checkLeak(text: string): void {
    if (text.includes(this.forbidden)) this.findings.push({ kind: "leak", answer: text.slice(0, 300) });
  }

  /** Matches the responses of one frame (a batch's all together) to what is owed under their ids. */
  #match(responses: readonly Response[]): void {
    const byKey = new Map<string, Response[]>();
    for (const response of responses) {
      if ("result" in response) this.#checkLeak(JSON.stringify(response.result));
      const code = "result" in response ? "result" : String(response.error?.code);
      this.outcomes.set(code, (this.outcomes.get(code) ?? 0) + 1);
      const key = keyOf(Object.hasOwn(response, "id") ? response.id : "(no id member)");
      const group = byKey.get(key);
      if (group) group.push(response);
      else byKey.set(key, [response]);
    }
    for (const [key, group] of byKey) {
      const list = this.#pending.get(key) ?? [];
      const pairs = pairUp(list, group);
      group.forEach((response, i) => {
        const answer = JSON.stringify(response).slice(0, 300);
        const pending = pairs[i] ?? list.find((p) => !pairs.includes(p));
        if (!pending) return void this.findings.push({ kind: "unexpected", answer });
        this.#take(key, pending, response);
        if (!pairs[i])
          this.findings.push({ kind: "wrong", frame: pending.frame, category: pending.category, sent: preview(pending.data, key), answer });
      });
    }
  }

  #take(key: string, pending: Pending, response: Response): void {
    const list = this.#pending.get(key) ?? [];
    list.splice(list.indexOf(pending), 1);
    if (list.length === 0) this.#pending.delete(key);
    this.#outstanding--;
    const left = this.#tabFrames.get(pending.frame);
    if (left !== undefined && pending.outcome === ANY_OUTCOME) this.#noteTabAnswer(pending, response);
    if (left !== undefined) {
      if (left <= 1) this.#tabFrames.delete(pending.frame);
      else this.#tabFrames.set(pending.frame, left - 1);
    }
    this.#time(pending);
  }
}

/**
 * Pairs responses sharing an id with the frames owed them, so that every response goes to one that may get it
 * whenever such a pairing exists (augmenting paths): a batch's items may share an id, and which of them the hub
 * refuses (-32600) or cancels is not for the ledger to guess. Strict fits are tried first, the narrowest first.
 */
function pairUp(list: readonly Pending[], group: readonly Response[]): (Pending | undefined)[] {
  const fits = group.map((response) => {
    const strict = list.filter((p) => accepts(p, response, false)).sort((a, b) => a.outcome.codes.length - b.outcome.codes.length);
    const lenient = list.filter((p) => !strict.includes(p) && accepts(p, response, true));
    // A refused shared id is most likely the later request's.
    return [...strict, ...(response.error?.code === CODES.INVALID_REQUEST ? lenient.reverse() : lenient)];
  });
  const owner = new Map<Pending, number>();
  const place = (i: number, seen: Set<Pending>): boolean => {
    for (const pending of fits[i] ?? []) {
      if (seen.has(pending)) continue;
      seen.add(pending);
      const other = owner.get(pending);
      if (other === undefined || place(other, seen)) {
        owner.set(pending, i);
        return true;
      }
    }
    return false;
  };
  group.forEach((_response, i) => place(i, new Set()));
  const pairs: (Pending | undefined)[] = group.map(() => undefined);
  for (const [pending, i] of owner) pairs[i] = pending;
  return pairs;
}

/** The findings grouped by kind, category and answer code, each with its first example. */
export function summarize(findings: readonly Finding[]): string {
  const groups = new Map<string, { count: number; first: Finding }>();
  for (const finding of findings) {
    const code = /"code":(-?\d+)/.exec(finding.answer ?? "")?.[1] ?? "";
    const key = `${finding.kind} ${finding.category ?? ""} ${code}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { count: 1, first: finding });
  }
  return [...groups.entries()]
    .map(
      ([key, { count, first }]) =>
        `  ${key} x${count}: frame #${first.frame ?? "-"} sent ${first.sent ?? "-"}\n      answer ${first.answer ?? "(none)"}`,
    )
    .join("\n");
}

/** Uncaught errors, counted by their first lines. */
export function describeCrashes(stacks: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const stack of stacks) {
    const head = stack.split("\n").slice(0, 4).join("\n");
    counts.set(head, (counts.get(head) ?? 0) + 1);
  }
  return [...counts].map(([head, count]) => `${count}x ${head}`).join("\n");
}
