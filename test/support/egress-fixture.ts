import http from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";

/**
 * A loopback server for the egress tests that counts every request and WebSocket upgrade it gets, by path
 * (`/data`, `/ws`, ...): a refused request must never show up here. Pages: `/page` (a page), `/data` (CORS JSON),
 * `/img` (a 1x1 GIF), `/events` (an EventSource stream), `/beacon` and `/form` (POST), `/redirect?to=URL` (302),
 * `/sw.js?urls=A,B` (a service worker that fetches A and B when it activates and reports to /sw-report).
 */
export interface CountingServer {
  port: number;
  /** Requests and upgrades seen, by path. */
  hits(path?: string): number;
  close(): Promise<void>;
}

const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

/** Starts a counting server on 127.0.0.1, port 0. */
export async function startCountingServer(): Promise<CountingServer> {
  const counts = new Map<string, number>();
  const count = (path: string): void => void counts.set(path, (counts.get(path) ?? 0) + 1);
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://counting.invalid");
    if (url.pathname !== "/favicon.ico") count(url.pathname);
    answer(url, request, response);
  });
  const sockets = new WebSocketServer({ server });
  sockets.on("connection", (socket) => {
    count("/ws");
    socket.send("hello");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits: (path) => (path === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(path) ?? 0)),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets.clients) socket.terminate();
        sockets.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(url: URL, request: http.IncomingMessage, response: http.ServerResponse): void {
  const cors = { "Access-Control-Allow-Origin": "*" };
  switch (url.pathname) {
    case "/redirect":
      response.writeHead(302, { ...cors, Location: url.searchParams.get("to") ?? "/" }).end();
      return;
    case "/img":
      response.writeHead(200, { "Content-Type": "image/gif" }).end(GIF);
      return;
    case "/events":
      response.writeHead(200, { ...cors, "Content-Type": "text/event-stream" });
      response.write("data: one\n\n");
      return;
    case "/sw.js":
      response.writeHead(200, { "Content-Type": "text/javascript" }).end(serviceWorker(url.searchParams.get("urls") ?? ""));
      return;
    case "/page":
      response.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>egress</title><iframe name=sink></iframe>");
      return;
    default:
      request.resume();
      response.writeHead(200, { ...cors, "Content-Type": "application/json" }).end('{"ok":true}');
  }
}

// Fetches each URL when it activates and tells the page what came of each (the text, or "refused").
function serviceWorker(urls: string): string {
  return `self.addEventListener("activate", (event) => {
  const urls = ${JSON.stringify(urls.split(",").filter(Boolean))};
  event.waitUntil(Promise.all(urls.map((u) => fetch(u).then((r) => r.text(), () => "refused"))).then(async (results) => {
    for (const client of await self.clients.matchAll({ includeUncontrolled: true })) client.postMessage(results);
  }));
});`;
}
