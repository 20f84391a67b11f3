import WebSocket from "ws";

/** What one call over a bare socket answers. */
export interface BareAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message?: string; data?: unknown };
}

/** Opens a WebSocket with headers of its own (a dashboard session's cookie and Origin); rejects with the HTTP status. */
export function socketWith(url: string, headers: Record<string, string>): Promise<WebSocket> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("unexpected-response", (_request, response) => {
      ws.terminate();
      reject(Object.assign(new Error(`HTTP ${response.statusCode}`), { status: response.statusCode }));
    });
    ws.once("error", reject);
  });
}

/** One call over a bare socket; the answer's result, or its error. */
export function callOver(ws: WebSocket, method: string, params: object = {}): Promise<BareAnswer> {
  const id = Math.floor(Math.random() * 1e9);
  return new Promise((resolve) => {
    const onMessage = (data: Buffer): void => {
      const frame = JSON.parse(data.toString("utf8")) as BareAnswer & { id?: number };
      if (frame.id !== id) return;
      ws.off("message", onMessage);
      resolve(frame);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  });
}
