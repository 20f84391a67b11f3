import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { audit } from "../log.js";
import { ErrorCode } from "../errors.js";
import { HttpError, readJsonBody, refusalError, sendError, sendJson } from "./http-io.js";
import { isRefusal, type AccessPolicy } from "../transport/access-policy.js";
import { SESSION_COOKIE, sessionIdOf, type UiSessions } from "../transport/ui-sessions.js";

/** What the dashboard's door needs: who may come in (and how fast tokens may be tried), and its sessions. */
export interface UiFrontOptions {
  policy: AccessPolicy;
  sessions: UiSessions;
}

// The page, its style sheet and its scripts are the hub's own files; nothing is loaded from anywhere else.
const UI_DIR = new URL("../../../ui/", import.meta.url);
const SCRIPTS_DIR = new URL("../../ui/", import.meta.url);
const ASSETS: Readonly<Record<string, { file: URL; type: string }>> = {
  "/ui": { file: new URL("index.html", UI_DIR), type: "text/html; charset=utf-8" },
  "/ui/": { file: new URL("index.html", UI_DIR), type: "text/html; charset=utf-8" },
  "/ui/style.css": { file: new URL("style.css", UI_DIR), type: "text/css; charset=utf-8" },
};
const SCRIPT_PATH = /^\/ui\/js\/([a-z0-9-]{1,64})\.js$/;
// The page may load and connect to this hub only: what the tests check of it, held by the browser too.
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};
// A sign-in's body is a token: read before anything is known of its sender, it is kept small.
const SIGN_IN_MAX_BODY_BYTES = 16 * 1024;

/**
 * The dashboard's door: `GET /ui` and its files, and `/ui/session`: sign in with a token (an HttpOnly, SameSite=Strict
 * cookie for a session that reaches what the token reaches), ask who is signed in, sign out. The page then talks to
 * `/rpc` with the cookie (docs/dashboard.md).
 */
export class UiFront {
  #options: UiFrontOptions;
  #cache = new Map<string, Buffer>();

  constructor(options: UiFrontOptions) {
    this.#options = options;
  }

  /** Whether a request is the dashboard's. */
  static wants(url: URL): boolean {
    return url.pathname === "/ui" || url.pathname.startsWith("/ui/");
  }

  /** Answers one request of the dashboard; failures are `{error: {code, message}}` with their status. */
  handle(request: IncomingMessage, response: ServerResponse, url: URL): void {
    this.#handle(request, response, url).catch((error: unknown) => sendError(response, error));
  }

  async #handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === "/ui/session") return this.#session(request, response, url);
    if (request.method !== "GET" && request.method !== "HEAD")
      throw new HttpError(405, { code: 405, message: "the dashboard's files are read with GET" });
    const script = SCRIPT_PATH.exec(url.pathname)?.[1];
    const asset = script ? { file: new URL(`${script}.js`, SCRIPTS_DIR), type: "text/javascript; charset=utf-8" } : ASSETS[url.pathname];
    if (!asset) throw new HttpError(404, { code: 404, message: `no dashboard file ${url.pathname.slice(0, 100)}; open /ui` });
    const body = await this.#read(asset.file);
    response.writeHead(200, { ...PAGE_HEADERS, "content-type": asset.type, "content-length": String(body.length) });
    response.end(request.method === "HEAD" ? undefined : body);
  }

  async #session(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const { policy, sessions } = this.#options;
    if (request.method === "GET") {
      const decision = policy.decide(request, url, "orchestrator");
      if (isRefusal(decision)) throw refusalError(decision);
      const via = decision.grant.key === undefined ? "open" : "cookie";
      return sendJson(response, 200, {
        signedIn: true,
        scope: scopeList(decision.grant.scope),
        capabilities: listOf(decision.grant.capabilities),
        via,
      });
    }
    if (request.method === "DELETE") {
      const id = sessionIdOf(request.headers.cookie);
      if (id !== null) sessions.close(id);
      audit("ui.signed-out", { peer: request.socket.remoteAddress });
      response.setHeader("set-cookie", `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
      return sendJson(response, 200, { signedIn: false });
    }
    if (request.method !== "POST") throw new HttpError(405, { code: 405, message: "/ui/session takes GET, POST {token} or DELETE" });
    return this.#signIn(request, response);
  }

  /** Signs in: wrong tokens are limited by the access policy's failed-authentication limit, as at every door. */
  async #signIn(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const peer = request.socket.remoteAddress ?? "unknown";
    const body = await readJsonBody(request, SIGN_IN_MAX_BODY_BYTES, "a sign-in is {token}");
    const token = typeof body.token === "string" ? body.token : "";
    const decision = this.#options.policy.signIn(request, token);
    if (isRefusal(decision)) {
      audit("ui.sign-in-refused", { peer, status: decision.status });
      throw refusalError(decision);
    }
    const id = this.#options.sessions.open(decision.grant);
    if (id === null)
      throw new HttpError(503, {
        code: ErrorCode.OVERLOADED,
        message: "the hub holds as many dashboard sessions as it keeps; sign out of sessions no longer used, or retry later",
      });
    audit("ui.signed-in", { peer, grant: decision.grant.key ?? "none", scope: scopeList(decision.grant.scope) });
    const maxAge = this.#options.sessions.ttlSeconds;
    response.setHeader("set-cookie", `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`);
    sendJson(response, 200, { signedIn: true, scope: scopeList(decision.grant.scope), capabilities: listOf(decision.grant.capabilities) });
  }

  async #read(file: URL): Promise<Buffer> {
    const cached = this.#cache.get(file.href);
    if (cached) return cached;
    const body = await readFile(file).catch(() => {
      throw new HttpError(404, { code: 404, message: "the dashboard is not built: run npm run build" });
    });
    this.#cache.set(file.href, body);
    return body;
  }
}

// The page leaves out the controls a token may not use; the hub refuses their calls whatever the page shows.
function listOf(capabilities: ReadonlySet<string> | null): string[] | null {
  return capabilities === null ? null : [...capabilities];
}

function scopeList(scope: ReadonlySet<string> | null): string[] | null {
  return scope === null ? null : [...scope];
}
