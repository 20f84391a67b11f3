import type { ChildProcess } from "node:child_process";

/**
 * The hub's base URL (`ws://host:port`) once a `tabwire serve` child prints where it listens; rejects when the child
 * exits first or takes longer than `timeoutMs`. `context` adds what the child printed to the error.
 */
export function hubListening(child: ChildProcess, timeoutMs: number, context: () => string = () => ""): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const fail = (why: string): void => {
      clearTimeout(timer);
      reject(new Error(`the hub ${why}${context() ? `: ${context()}` : ""}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${timeoutMs} ms`), timeoutMs);
    child.once("exit", (code) => fail(`exited at start-up (code ${code})`));
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (ws:\/\/\S+?)\/rpc/.exec(seen);
      if (!match?.[1]) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
  });
}
