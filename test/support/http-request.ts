import http from "node:http";
import WebSocket from "ws";

export interface Reply {
  status: number;
  text: string;
  body: { error?: { code: unknown; message: string } } & Record<string, unknown>;
}

export interface RequestOptions {
  token?: string;
  query?: string;
  origin?: string;
  body?: unknown;
  contentType?: string;
  /** The body's text as it is, instead of `body` written as JSON. */
  rawBody?: string;
}

/** The routes of docs/protocol.md section 7 that need a token (all but GET /health). */
export const TOKEN_ROUTES: readonly [method: string, route: string][] = [
  ["GET", "/status"],
  ["GET", "/clients"],
  ["GET", "/clients/local/tabs"],
  ["POST", "/tabs/open"],
  ["POST", "/tabs/close"],
  ["POST", "/page/content"],
  ["POST", "/page/screenshot"],
  ["POST", "/page/execute"],
  ["POST", "/v1/responses"],
];

/** One HTTP request to a hub (`"GET /status"`): the token as a Bearer header or in the query, optionally an Origin. */
export async function request(port: number, methodAndRoute: string, options: RequestOptions = {}): Promise<Reply> {
  const space = methodAndRoute.indexOf(" ");
  const method = methodAndRoute.slice(0, space);
  const route = methodAndRoute.slice(space + 1);
  const headers: Record<string, string> = { "content-type": options.contentType ?? "application/json" };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.origin) headers.origin = options.origin;
  const query = options.query === undefined ? "" : `${route.includes("?") ? "&" : "?"}token=${encodeURIComponent(options.query)}`;
  const body = method === "POST" ? (options.rawBody ?? JSON.stringify(options.body ?? {})) : undefined;
  const response = await fetch(`http://127.0.0.1:${port}${route}${query}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: Reply["body"] = {};
  try {
    parsed = JSON.parse(text) as Reply["body"];
  } catch {
    // A non-JSON body is checked through `text`.
  }
  return { status: response.status, text, body: parsed };
}

/** The HTTP status an upgrade gets: the refusal's, or 101 when the socket opens (it is closed again at once). */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (_request, response) => {
      ws.terminate();
      resolve(response.statusCode ?? 0);
    });
    ws.once("open", () => {
      ws.close();
      resolve(101);
    });
    ws.once("error", reject);
  });
}

/** What a door answered one request from a chosen source: its status, Retry-After, and the JSON body. */
export interface SourcedReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  retryAfter: string | undefined;
  body: { error?: { code: unknown; message: string; data?: { retryAfterMs?: number } } } & Record<string, unknown>;
}

/** One HTTP request from a chosen loopback source address (127.0.0.x are all this machine), as `request` sends it. */
export function requestFrom(
  port: number,
  localAddress: string,
  sent: { methodAndPath: string; token?: string; body?: unknown; headers?: Record<string, string> },
): Promise<SourcedReply> {
  const [method, path] = sent.methodAndPath.split(" ");
  const body = sent.body === undefined ? undefined : JSON.stringify(sent.body);
  const headers: Record<string, string> = { "content-type": "application/json", ...sent.headers };
  if (sent.token !== undefined) headers.authorization = `Bearer ${sent.token}`;
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: "127.0.0.1", port, method, path, headers, localAddress, agent: false }, (response) => {
      const retryAfter = response.headers["retry-after"];
      // A stream (an MCP answer as server-sent events) is not read to its end: its status is the answer.
      if (response.headers["content-type"]?.startsWith("text/event-stream")) {
        response.destroy();
        return resolve({ status: response.statusCode ?? 0, headers: response.headers, retryAfter, body: {} });
      }
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, retryAfter, body: parseOr(text) }));
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** An upgrade from a chosen loopback source address: 101 (the socket is closed again at once) or the refusal. */
export function upgradeFrom(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<SourcedReply> {
  const ws = new WebSocket(url, { localAddress, headers });
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (_request, response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      response.on("end", () => {
        ws.terminate();
        const { statusCode, headers } = response;
        resolve({ status: statusCode ?? 0, headers, retryAfter: headers["retry-after"], body: parseOr(text) });
      });
    });
    ws.once("open", () => {
      ws.close();
      resolve({ status: 101, headers: {}, retryAfter: undefined, body: {} });
    });
    ws.once("error", reject);
  });
}

function parseOr(text: string): SourcedReply["body"] {
  try {
    return JSON.parse(text) as SourcedReply["body"];
  } catch {
    return {};
  }
}
