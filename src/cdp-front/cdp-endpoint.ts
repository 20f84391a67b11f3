import { allows } from "../capabilities.js";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type WebSocket from "ws";
import { ErrorCode } from "../errors.js";
import { HttpError, refusalError, sendError, sendJson } from "../http/http-io.js";
import type { HubServices } from "../services.js";
import { isRefusal, type AccessPolicy } from "../transport/access-policy.js";
import type { Grant } from "../transport/auth.js";
import { CdpProxy } from "./cdp-proxy.js";

/** The client a /cdp connection acts for, or why it may not come in. */
export type CdpClientChoice = { clientId: string; ephemeral: boolean } | { status: 400 | 403; message: string };

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;
// Chrome's own answer to a command: a connection's commands are bounded as the hub's are.
const COMMAND_TIMEOUT_MS = 30_000;

/**
 * Which client a /cdp connection acts for (docs/cdp.md): `?ephemeral=true` a fresh one of its own; else `?clientId=`
 * (one of a scoped token's clients), else a scoped token's only client, else DEFAULT_CLIENT_ID for a full token. Raw
 * CDP runs any code, so a hub with EVALUATE_ENABLED=false has no /cdp, and a token without `script` none either.
 */
export function cdpClientOf(grant: Grant, url: URL, services: HubServices): CdpClientChoice {
  if (!services.config.evaluateEnabled)
    return { status: 403, message: "/cdp runs any code in pages, and running code is turned off on this hub (EVALUATE_ENABLED=false)" };
  if (!allows(grant.capabilities, "script"))
    return {
      status: 403,
      message: '/cdp runs any code in pages: it needs the capability "script", which this token does not have (ACCESS_FILE)',
    };
  if (url.searchParams.get("ephemeral") === "true") return { clientId: `cdp-${randomBytes(6).toString("hex")}`, ephemeral: true };
  const asked = url.searchParams.get("clientId");
  if (asked !== null && !CLIENT_ID.test(asked)) return { status: 400, message: "clientId is 1-128 letters, digits, '.', '_' or '-'" };
  if (grant.scope === null) return { clientId: asked ?? services.config.defaultClientId, ephemeral: false };
  if (asked !== null) {
    return grant.scope.has(asked)
      ? { clientId: asked, ephemeral: false }
      : { status: 403, message: `this token does not reach client ${asked}` };
  }
  const [only, ...more] = [...grant.scope];
  if (only === undefined || more.length > 0)
    return { status: 400, message: "this token reaches several clients: name one with ?clientId=" };
  return { clientId: only, ephemeral: false };
}

/** Serves one accepted /cdp WebSocket as its client, with the hub's per-connection limits. */
export function openCdpProxy(
  ws: WebSocket,
  choice: { clientId: string; ephemeral: boolean; takePlace: () => (() => void) | null },
  services: HubServices,
): void {
  const { maxInflight, ratePerSec, sendHighWaterBytes: highWaterBytes, slowReaderTimeoutMs } = services.config;
  try {
    const limits = { maxInflight, ratePerSec, highWaterBytes, slowReaderTimeoutMs, commandTimeoutMs: COMMAND_TIMEOUT_MS };
    new CdpProxy(ws, { services, ...choice, ...limits });
  } catch (error) {
    ws.close(1011, (error as Error).message.slice(0, 120));
  }
}

/** Whether a request is for the /cdp discovery endpoints (`/cdp/json/version`, `/cdp/json/list`, and `/json/version`). */
export function wantsCdpJson(url: URL): boolean {
  return /^\/cdp\/json(\/(version|list))?\/?$/.test(url.pathname) || /^\/json\/version\/?$/.test(url.pathname);
}

/**
 * Chrome's discovery endpoints for clients that start from an HTTP address (Playwright's connectOverCDP, Puppeteer's
 * browserURL): the version with the /cdp WebSocket address (keeping the query, so the token and client go with it),
 * and the list of the client's pages.
 */
export async function answerCdpJson(
  { request, response, url }: { request: IncomingMessage; response: ServerResponse; url: URL },
  parts: { services: HubServices; policy: AccessPolicy },
): Promise<void> {
  try {
    const decision = parts.policy.decide(request, url, "orchestrator");
    if (isRefusal(decision)) throw refusalError(decision);
    const choice = cdpClientOf(decision.grant, url, parts.services);
    if ("status" in choice) throw new HttpError(choice.status, { code: ErrorCode.FORBIDDEN, message: choice.message });
    const host = request.headers.host ?? `${parts.services.config.host}:${parts.services.config.port}`;
    const socketUrl = `ws://${host}/cdp${url.search}`;
    if (url.pathname.replace(/\/$/, "").endsWith("/version")) {
      const version = await parts.services.browser.connection().send("Browser.getVersion", undefined, { timeoutMs: 5_000 });
      return sendJson(response, 200, {
        Browser: version.product,
        "Protocol-Version": version.protocolVersion,
        "User-Agent": version.userAgent,
        "V8-Version": version.jsVersion,
        webSocketDebuggerUrl: socketUrl,
      });
    }
    const { services } = parts;
    const pages = choice.ephemeral
      ? []
      : services.browser.pages().filter((page) => services.clients.ownerOf(page.tabId) === choice.clientId);
    sendJson(
      response,
      200,
      pages.map((page) => ({ id: page.tabId, type: "page", title: page.title, url: page.url, webSocketDebuggerUrl: socketUrl })),
    );
  } catch (error) {
    sendError(response, error);
  }
}
