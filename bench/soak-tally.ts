import type { WsCaller } from "./ws-caller.js";

/** Counts a soak's calls, their latencies (overall and per interval), its failures and each workload's cycles. */
export class Tally {
  calls = 0;
  answered = 0;
  errors = new Map<string, number>();
  cycles = new Map<string, number>();
  latencies: number[] = [];
  interval: number[] = [];
  intervalErrors = 0;

  fail(kind: string): void {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
    this.intervalErrors++;
  }

  cycle(workload: string): void {
    this.cycles.set(workload, (this.cycles.get(workload) ?? 0) + 1);
  }

  /** Sends one call and records it: its latency if answered, its error by method and code, or that it got no answer. */
  async call(caller: WsCaller, method: string, params: object = {}): Promise<Record<string, unknown> | undefined> {
    this.calls++;
    const started = performance.now();
    let answer: Record<string, unknown>;
    try {
      answer = await caller.send({ jsonrpc: "2.0", method, params });
    } catch (error) {
      this.fail(`${method}: ${(error as Error).message.slice(0, 80)}`);
      return undefined;
    }
    this.#answered(started);
    const error = answer.error as { code?: number; message?: string } | undefined;
    if (error === undefined) return answer.result as Record<string, unknown>;
    this.fail(`${method}: ${error.code} ${String(error.message).slice(0, 80)}`);
    return undefined;
  }

  /**
   * Runs one step of a client that is not a JSON-RPC socket (an MCP session, Puppeteer or Playwright over /cdp) and
   * records it as a call: its latency when it ends, its failure under `kind` when it throws.
   */
  async step<T>(kind: string, run: () => Promise<T>): Promise<T | undefined> {
    this.calls++;
    const started = performance.now();
    try {
      const value = await run();
      this.#answered(started);
      return value;
    } catch (error) {
      this.fail(`${kind}: ${(error as Error).message.slice(0, 80)}`);
      return undefined;
    }
  }

  #answered(started: number): void {
    this.answered++;
    const ms = performance.now() - started;
    this.latencies.push(ms);
    this.interval.push(ms);
  }
}
