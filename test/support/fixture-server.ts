import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
};
const PAGES_DIR = fileURLToPath(new URL("../../../test/fixtures/pages/", import.meta.url));

/**
 * A localhost server for the fixture pages in test/fixtures/pages, plus /slow?ms=N which answers late,
 * /mark?name=X which a page calls to tell the test it got somewhere (e.g. just before it starts spinning),
 * /set-cookie?name=N&value=V which sets an HttpOnly cookie, /cookies which answers the Cookie header it got, and
 * /bytes?size=N&name=F which answers a download of N bytes named F (see serveBytes: `chunked`, `group`, `of`, `first`),
 * and /hang (any query) which accepts the request and never answers it, until close() ends it.
 */
export interface FixtureServer {
  origin: string;
  url(page: string): string;
  /** Resolves when a page has requested /mark?name=<name>, or rejects after `timeoutMs`. */
  waitForMark(name: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fixture server on a free loopback port. */
export async function startFixtureServer(): Promise<FixtureServer> {
  const marks = new Set<string>();
  const markWaiters = new Map<string, () => void>();
  const groups = new Map<string, Group>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fixture.invalid");
    if (url.pathname === "/hang") {
      hanging.add(response);
      response.once("close", () => hanging.delete(response));
      return;
    }
    // Chrome asks every origin for a favicon; a 404 would add a browser console message to every page.
    if (url.pathname === "/favicon.ico") {
      response.writeHead(204);
      response.end();
      return;
    }
    if (url.pathname === "/mark") {
      const name = url.searchParams.get("name") ?? "";
      marks.add(name);
      markWaiters.get(name)?.();
      response.writeHead(204, { "Access-Control-Allow-Origin": "*" });
      response.end();
      return;
    }
    if (url.pathname === "/bytes") return serveBytes(url, response, groups);
    void serve(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (page) => `${origin}/${page}`,
    waitForMark: (name, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (marks.has(name)) return resolve();
        const timer = setTimeout(() => reject(new Error(`no /mark?name=${name} within ${timeoutMs} ms`)), timeoutMs);
        markWaiters.set(name, () => {
          clearTimeout(timer);
          markWaiters.delete(name);
          resolve();
        });
      }),
    close: () =>
      new Promise((resolve) => {
        for (const response of hanging) response.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Downloads that answer together: each waits, after its first bytes, until `of` of them have begun. */
interface Group {
  arrived: number;
  waiters: (() => void)[];
}

const GROUP_WAIT_MS = 15_000;

/**
 * A download of `size` bytes named `name`, with its Content-Length unless `chunked=1`. With `group=G&of=K` it sends
 * its `first` bytes (default half), then holds the rest until K downloads of group G have begun (at most 15 s), so
 * that they run at once however fast the browser is.
 */
function serveBytes(url: URL, response: http.ServerResponse, groups: Map<string, Group>): void {
  const size = Math.min(Number(url.searchParams.get("size") ?? "1024"), 64 * 1024 * 1024);
  const first = Math.min(Number(url.searchParams.get("first") ?? size / 2), size);
  const name = (url.searchParams.get("name") ?? "bytes.bin").replace(/[^\w.-]/g, "_");
  const headers: http.OutgoingHttpHeaders = {
    "Content-Type": "application/octet-stream",
    "Content-Disposition": `attachment; filename="${name}"`,
  };
  if (url.searchParams.get("chunked") !== "1") headers["Content-Length"] = size;
  response.writeHead(200, headers);
  response.write(Buffer.alloc(first, 0x61));
  const finish = (): void => void (response.destroyed || response.end(Buffer.alloc(size - first, 0x62)));
  const key = url.searchParams.get("group");
  if (key === null) return finish();
  const group = groups.get(key) ?? { arrived: 0, waiters: [] };
  groups.set(key, group);
  group.arrived++;
  if (group.arrived >= Number(url.searchParams.get("of") ?? "1")) {
    for (const waiter of group.waiters.splice(0)) waiter();
    return finish();
  }
  const timer = setTimeout(finish, GROUP_WAIT_MS);
  group.waiters.push(() => {
    clearTimeout(timer);
    finish();
  });
}

async function serve(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://fixture.invalid");
  if (url.pathname === "/slow") {
    const ms = Math.min(Number(url.searchParams.get("ms") ?? "1000"), 30_000);
    setTimeout(() => {
      response.writeHead(200, { "Content-Type": "text/html" });
      response.end("<title>slow</title><p>slow page</p>");
    }, ms);
    return;
  }
  if (url.pathname === "/set-cookie") {
    // An HttpOnly cookie: a page's script cannot read it, but every request of the same browser context sends it.
    const cookie = `${url.searchParams.get("name") ?? "session"}=${url.searchParams.get("value") ?? ""}; Path=/; HttpOnly`;
    response.writeHead(200, { "Content-Type": "text/html", "Set-Cookie": cookie });
    response.end("<title>cookie set</title>");
    return;
  }
  if (url.pathname === "/cookies") {
    response.writeHead(200, { "Content-Type": "text/plain" });
    response.end(request.headers.cookie ?? "");
    return;
  }
  const name = path.basename(url.pathname) || "index.html";
  try {
    const body = await readFile(path.join(PAGES_DIR, name));
    response.writeHead(200, { "Content-Type": CONTENT_TYPES[path.extname(name)] ?? "application/octet-stream" });
    response.end(body);
  } catch {
    response.writeHead(404, { "Content-Type": "text/plain" });
    response.end("not found");
  }
}
