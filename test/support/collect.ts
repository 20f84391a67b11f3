import type { TestRpcClient } from "./rpc-client.js";

/** Collects notifications of one method until `done` says so, with a deadline. */
export function collect<T>(client: TestRpcClient, method: string, done: (all: T[]) => boolean, timeoutMs = 20_000): Promise<T[]> {
  const all: T[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${all.length} ${method} within ${timeoutMs} ms`)), timeoutMs);
    client.onNotification((name, params) => {
      if (name !== method) return;
      all.push(params as T);
      if (done(all)) {
        clearTimeout(timer);
        resolve(all);
      }
    });
  });
}
