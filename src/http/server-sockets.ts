import type http from "node:http";
import type { AddressInfo } from "node:net";
import type { WebSocket } from "ws";

// How long closeAll waits for the close handshakes before it terminates the sockets left.
const CLOSE_WAIT_MS = 1_000;

/** Listens on host:port (0: a free port) and answers the port it got; rejects with the listen error. */
export function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes every socket with 1001 and waits for the close handshakes, terminating the ones that do not finish in time. */
export async function closeAll(sockets: Set<WebSocket>): Promise<void> {
  const closed = [...sockets].map((ws) => new Promise((resolve) => ws.once("close", resolve)));
  for (const ws of sockets) ws.close(1001, "the hub is shutting down");
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
  clearTimeout(timer);
  for (const ws of sockets) ws.terminate();
}
