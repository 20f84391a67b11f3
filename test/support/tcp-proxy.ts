import net from "node:net";

/** A TCP proxy on a loopback port 0 in front of a hub, whose line can be cut: every socket through it drops at once. */
export interface TcpProxy {
  /** ws://127.0.0.1:<its port> */
  url: string;
  /** When it last took a connection (performance.now()), or NaN: the moment a client came back after a cut. */
  lastConnectedAt(): number;
  /** Drops every connection through it and refuses new ones (reset) for `ms`; resolves when it takes them again. */
  cut(ms: number): Promise<void>;
  /** Sends the connections it takes from now on to another port (a load balancer that picks another instance). */
  retarget(port: number): void;
  close(): Promise<void>;
}

/** Starts a proxy to `port` on loopback. */
export async function startTcpProxy(firstPort: number): Promise<TcpProxy> {
  let port = firstPort;
  const pairs = new Set<net.Socket>();
  let isCut = false;
  let connectedAt = Number.NaN;
  const server = net.createServer((incoming) => {
    incoming.on("error", () => {});
    // A cut line: the client sees a reset, as when a network goes away, and tries again later.
    if (isCut) return void incoming.resetAndDestroy();
    connectedAt = performance.now();
    const outgoing = net.connect(port, "127.0.0.1");
    outgoing.on("error", () => incoming.destroy());
    incoming.on("error", () => outgoing.destroy());
    incoming.on("close", () => outgoing.destroy());
    outgoing.on("close", () => incoming.destroy());
    incoming.pipe(outgoing).pipe(incoming);
    pairs.add(incoming).add(outgoing);
    incoming.once("close", () => pairs.delete(incoming));
    outgoing.once("close", () => pairs.delete(outgoing));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return {
    url: `ws://127.0.0.1:${own}`,
    lastConnectedAt: () => connectedAt,
    cut(ms) {
      isCut = true;
      for (const socket of pairs) socket.resetAndDestroy();
      return new Promise((resolve) =>
        setTimeout(() => {
          isCut = false;
          resolve();
        }, ms),
      );
    },
    retarget(next) {
      port = next;
    },
    close() {
      for (const socket of pairs) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
