import type { Notifications, TabwireClient } from "../../src/client/index.js";
import { TestRpcClient } from "./rpc-client.js";

/** When collecting stops: once `done` says so (within 20 s, or `timeoutMs`). */
type Until<T> = ((all: T[]) => boolean) | { done: (all: T[]) => boolean; timeoutMs?: number };

/** Collects one notification from the typed client until `done` says so, with a deadline; then stops listening. */
export function collect<N extends keyof Notifications>(
  client: TabwireClient,
  name: N,
  until: Until<Notifications[N]>,
): Promise<Notifications[N][]>;
/** Collects notifications of one method from a bare wire client until `done` says so, with a deadline. */
export function collect<T>(client: TestRpcClient, method: string, until: Until<T>): Promise<T[]>;
export function collect(client: TabwireClient | TestRpcClient, method: string, until: Until<unknown>): Promise<unknown[]> {
  const { done, timeoutMs = 20_000 } = typeof until === "function" ? { done: until } : until;
  const all: unknown[] = [];
  return new Promise((resolve, reject) => {
    let dispose = (): void => {};
    const timer = setTimeout(() => {
      dispose();
      reject(new Error(`only ${all.length} ${method} within ${timeoutMs} ms`));
    }, timeoutMs);
    const take = (params: unknown): void => {
      all.push(params);
      if (!done(all)) return;
      clearTimeout(timer);
      dispose();
      resolve(all);
    };
    if (client instanceof TestRpcClient) {
      client.onNotification((name, params) => {
        if (name === method) take(params);
      });
    } else dispose = client.on(method as keyof Notifications, take);
  });
}
