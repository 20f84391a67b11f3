import type { IncomingMessage, ServerResponse } from "node:http";
import type { HubServices } from "../services.js";

const STARTED_AT = Date.now();

/** Answers plain HTTP requests: `/health` for now; the rest of the HTTP API comes with the agents work. */
export function handleHttp(request: IncomingMessage, response: ServerResponse, services: HubServices): void {
  const url = new URL(request.url ?? "/", "http://hub.invalid");
  if (request.method === "GET" && url.pathname === "/health") {
    sendJson(response, 200, { ok: true, browser: services.browser.isUp ? "connected" : "down", uptimeMs: Date.now() - STARTED_AT });
    return;
  }
  sendJson(response, 404, { error: { code: 404, message: `no route ${request.method ?? ""} ${url.pathname.slice(0, 100)}` } });
}

/** Writes a JSON body with its status. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  response.end(text);
}
