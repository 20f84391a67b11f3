import http from "node:http";
import type { AddressInfo } from "node:net";

/** A bench site on a free loopback port: its URL (with `path`) and how to close it. */
export interface LoopbackSite {
  url: string;
  close: () => Promise<void>;
}

/** Serves `handler` on a free loopback port. */
export async function serveOnLoopback(handler: http.RequestListener, path = ""): Promise<LoopbackSite> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  // A socket Chrome opened ahead of a request it never sent (a preconnect) is not idle to Node, so close() would wait on it.
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${port}/${path}`, close };
}
