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
