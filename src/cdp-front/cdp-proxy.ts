import type { Protocol } from "devtools-protocol";
import type WebSocket from "ws";
import { Budget } from "../budget.js";
import type { CdpConnection } from "../cdp/connection.js";
import { log } from "../log.js";
import { checkUrlAllowed } from "../runtime/url-policy.js";
import type { HubServices } from "../services.js";
import { CdpFailure, NO_SESSION, NO_TARGET, readFrame, refused, wireError, type Frame } from "./cdp-frames.js";
import { CdpClients } from "./cdp-clients.js";
import { CdpDownloads } from "./cdp-downloads.js";
import { CdpLimits } from "./cdp-limits.js";
import { CdpOutbox } from "./cdp-outbox.js";
import { CdpSessions } from "./cdp-sessions.js";
import { CdpPageGate } from "./cdp-page-gate.js";
import { BY_TARGET_ID, IN_CLIENT_CONTEXT, isBrowserScoped } from "./cdp-rules.js";

/** Who a /cdp connection acts for, and its limits. */
export interface CdpProxyOptions {
  services: HubServices;
  clientId: string;
  /** The connection made its client for itself: its tabs and context go with it. */
  ephemeral: boolean;
  /** A place in the token's MAX_EPHEMERAL_CLIENTS_PER_TOKEN for a context the caller makes, or null when none is left. */
  takePlace: () => (() => void) | null;
  maxInflight: number;
  ratePerSec: number;
  /** How long Chrome has to answer one command before the caller gets an error. */
  commandTimeoutMs: number;
  /** A caller that leaves more than this unread for slowReaderTimeoutMs is disconnected. */
  highWaterBytes: number;
  slowReaderTimeoutMs: number;
}

/**
 * One browser-level CDP connection at /cdp, acting for one client over the hub's own connection to Chrome: it sees
 * and makes only the client's pages (its browser context is the caller's default one), its sessions are its own,
 * and what would reach past the client is refused with a CDP error (docs/cdp.md).
 */
export class CdpProxy {
  #ws: WebSocket;
  #options: CdpProxyOptions;
  #connection: CdpConnection;
  #sessions: CdpSessions;
  /** The client's pages this connection was told of (so their end is told too). */
  #shown = new Set<string>();
  /** The client's pages this connection auto-attached to, each settled once the caller has heard of its session. */
  #attached = new Map<string, Promise<void>>();
  #windows = new Set<number>();
  #discover = false;
  #autoAttach = false;
  #limits: CdpLimits;
  #clients: CdpClients;
  #downloads: CdpDownloads;
  #gate = new CdpPageGate();
  #unsubscribe: (() => void)[] = [];
  #outbox: CdpOutbox;
  #closed = false;

  constructor(ws: WebSocket, options: CdpProxyOptions) {
    this.#ws = ws;
    this.#options = options;
    this.#connection = options.services.browser.connection();
    const { highWaterBytes, slowReaderTimeoutMs, clientId } = options;
    this.#outbox = new CdpOutbox(ws, { highWaterBytes, slowReaderTimeoutMs, clientId });
    this.#sessions = new CdpSessions(this.#connection, (message) => this.#emit(message));
    this.#limits = new CdpLimits(options);
    const { services, ephemeral, takePlace } = options;
    this.#clients = new CdpClients({ services, connection: this.#connection, clientId, ephemeral, takePlace });
    this.#downloads = new CdpDownloads(this.#connection, {
      isOwnPage: (frameId) => this.#isOwnPage(frameId),
      emit: (message) => this.#emit(message),
      cancel: (download) => void this.#cancelDownload(download),
      refuse: (refused) => this.#clients.refuseDownloads(refused),
    });
    this.#listen();
    ws.on("message", (data, isBinary) => this.#onFrame(isBinary ? null : data.toString()));
    ws.on("close", () => void this.#dispose());
  }

  #listen(): void {
    const connection = this.#connection;
    const on = <
      E extends
        | "Target.targetCreated"
        | "Target.targetInfoChanged"
        | "Target.targetDestroyed"
        | "Target.targetCrashed"
        | "Target.detachedFromTarget",
    >(
      event: E,
      listener: (params: never) => void,
    ): void => {
      connection.on(event, listener as never);
      this.#unsubscribe.push(() => connection.off(event, listener as never));
    };
    on("Target.targetCreated", (event: Protocol.Target.TargetCreatedEvent) => this.#onTargetInfo(event.targetInfo, true));
    on("Target.targetInfoChanged", (event: Protocol.Target.TargetInfoChangedEvent) => this.#onTargetInfo(event.targetInfo, false));
    on("Target.targetDestroyed", (event: Protocol.Target.TargetDestroyedEvent) => this.#onTargetGone("Target.targetDestroyed", event));
    on("Target.targetCrashed", (event: Protocol.Target.TargetCrashedEvent) => this.#onTargetGone("Target.targetCrashed", event));
    on("Target.detachedFromTarget", (event: Protocol.Target.DetachedFromTargetEvent) => {
      if (!this.#sessions.has(event.sessionId)) return;
      this.#sessions.forget(event.sessionId);
      this.#emit({ method: "Target.detachedFromTarget", params: event });
    });
    const lost = (): void => this.#ws.close(1011, "Chrome was lost; the hub is reconnecting: connect again shortly");
    connection.once("disconnected", lost);
    this.#unsubscribe.push(() => connection.off("disconnected", lost));
  }

  #onFrame(text: string | null): void {
    const frame = text === null ? { invalidId: undefined } : readFrame(text);
    if ("invalidId" in frame) {
      const id = frame.invalidId;
      if (id !== undefined) this.#emit({ id, error: { code: -32600, message: "a command is {id, method, params?, sessionId?}" } });
      return;
    }
    this.#answer(
      frame,
      this.#limits.run(() => this.#run(frame)),
    );
  }

  #answer(frame: Frame, outcome: Promise<unknown>): void {
    const session = frame.sessionId === undefined ? {} : { sessionId: frame.sessionId };
    outcome.then(
      (result) => this.#emit({ id: frame.id, result, ...session }),
      (error: unknown) => this.#emit({ id: frame.id, error: wireError(error, frame.method), ...session }),
    );
  }

  async #run({ method, params, sessionId }: Frame): Promise<unknown> {
    if (sessionId === undefined) return this.#browserLevel(method, params);
    if (!this.#sessions.has(sessionId)) throw NO_SESSION();
    if (method === "Target.setAutoAttach" || (method === "Target.getTargetInfo" && params.targetId === undefined))
      return this.#send(method, params, sessionId);
    if (method === "Target.detachFromTarget") return this.#detach(params);
    if (isBrowserScoped(method)) return this.#browserLevel(method, params);
    return this.#onPage(method, params, sessionId);
  }

  /** A command on one of the connection's page sessions: only what the allowlist names, with params that stay in the page. */
  async #onPage(method: string, params: Record<string, unknown>, sessionId: string): Promise<unknown> {
    this.#gate.check(method, params);
    if (method === "Page.navigate") this.#checkUrl(params.url);
    const result = await this.#send(method, params, sessionId);
    this.#gate.record(method, params, result);
    return result;
  }

  async #browserLevel(method: string, params: Record<string, unknown>): Promise<unknown> {
    if (IN_CLIENT_CONTEXT.has(method)) return this.#send(method, await this.#inContext(params));
    if (BY_TARGET_ID.has(method) && !(method === "Target.getTargetInfo" && params.targetId === undefined)) {
      this.#ownPage(params.targetId);
      return this.#send(method, params);
    }
    switch (method) {
      case "Browser.getVersion":
      case "Target.getTargetInfo":
        return this.#send(method, params);
      case "Browser.close":
        // Ends this connection only: the browser is the hub's, and other clients are on it.
        setImmediate(() => this.#ws.close(1000, "Browser.close ends this connection; the hub's browser goes on"));
        return {};
      case "Target.getBrowserContexts":
        // The client's context is the caller's default one; the others are those the connection made.
        return { browserContextIds: this.#clients.madeContextIds() };
      case "Target.createBrowserContext":
        return this.#clients.create(params);
      case "Target.disposeBrowserContext":
        return this.#clients.dispose(params.browserContextId);
      case "Target.getTargets": {
        const { targetInfos } = (await this.#send(method, {})) as Protocol.Target.GetTargetsResponse;
        return { targetInfos: targetInfos.filter((info) => this.#isOwnPage(info.targetId)) };
      }
      case "Target.setDiscoverTargets":
        return this.#setDiscover(params.discover === true);
      case "Target.setAutoAttach":
        return this.#setAutoAttach(params);
      case "Target.createTarget":
        return this.#createTarget(params);
      case "Target.attachToTarget":
        if (params.flatten !== true)
          throw new CdpFailure(-32602, "tabwire's /cdp serves flattened sessions only: attach with flatten: true");
        return { sessionId: await this.#attach(this.#ownPage(params.targetId)) };
      case "Target.detachFromTarget":
        return this.#detach(params);
      case "Browser.getWindowForTarget": {
        const answer = (await this.#send(method, {
          targetId: this.#ownPage(params.targetId),
        })) as Protocol.Browser.GetWindowForTargetResponse;
        this.#windows.add(answer.windowId);
        return answer;
      }
      case "Browser.setDownloadBehavior":
        return this.#downloads.set(params);
      case "Browser.getWindowBounds":
      case "Browser.setWindowBounds":
      case "Browser.setContentsSize":
        if (!this.#windows.has(params.windowId as number)) throw new CdpFailure(-32000, "Browser window not found");
        return this.#send(method, params);
      default:
        throw refused(method);
    }
  }

  /** The command's params in the context it names when that is one of the connection's, else the main client's. */
  async #inContext(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { browserContextId: named, ...rest } = params;
    const contextId = await this.#clients.contextOf(named);
    return contextId === undefined ? rest : { ...rest, browserContextId: contextId };
  }

  /** Cancels a download in the context of the page that started it (the main client's or one the connection made). */
  async #cancelDownload({ guid, frameId }: { guid: string; frameId: string }): Promise<void> {
    const { clients } = this.#options.services;
    const context = clients.contexts.existing(clients.ownerOf(frameId)) ?? {};
    await this.#send("Browser.cancelDownload", { guid, ...context }).catch(() => undefined);
  }

  async #createTarget(params: Record<string, unknown>): Promise<unknown> {
    this.#checkUrl(params.url);
    const { browserContextId: named, ...rest } = params;
    const created = await this.#clients.createTarget(named, async (contextId) => {
      const scoped = contextId === undefined ? rest : { ...rest, browserContextId: contextId };
      return (await this.#send("Target.createTarget", scoped)) as Protocol.Target.CreateTargetResponse;
    });
    // Chrome tells an auto-attaching client of the new page's session before its answer (Playwright counts on it).
    if (this.#autoAttach) await this.#autoAttachTo(created.targetId);
    return created;
  }

  /** Discovery as Chrome does it, of the client's pages only: those there now are told at once. */
  async #setDiscover(discover: boolean): Promise<object> {
    this.#discover = discover;
    if (!discover) return {};
    const { targetInfos } = (await this.#send("Target.getTargets", {})) as Protocol.Target.GetTargetsResponse;
    for (const info of targetInfos) if (this.#isOwnPage(info.targetId)) this.#show(info);
    return {};
  }

  /**
   * Auto-attach at the browser level, to the client's pages only: the hub attaches this connection to each page there
   * now and to each new one, and tells it as Chrome would (a page is never held waiting for this connection).
   */
  async #setAutoAttach(params: Record<string, unknown>): Promise<object> {
    if (params.flatten !== true)
      throw new CdpFailure(-32602, "tabwire's /cdp serves flattened sessions only: auto-attach with flatten: true");
    this.#autoAttach = params.autoAttach === true;
    if (!this.#autoAttach) return {};
    const { targetInfos } = (await this.#send("Target.getTargets", {})) as Protocol.Target.GetTargetsResponse;
    await Promise.all(targetInfos.filter((info) => this.#isOwnPage(info.targetId)).map((info) => this.#autoAttachTo(info.targetId, info)));
    return {};
  }

  #autoAttachTo(targetId: string, known?: Protocol.Target.TargetInfo): Promise<void> {
    let attached = this.#attached.get(targetId);
    if (!attached) {
      attached = this.#attach(targetId, known).then(
        () => undefined,
        (error: Error) => {
          log.debug("a /cdp auto-attach failed", { targetId, error: error.message });
        },
      );
      this.#attached.set(targetId, attached);
    }
    return attached;
  }

  /**
   * Attaches this connection to one of the client's pages (its info asked of Chrome when the caller did not have it);
   * the caller hears of the session before the answer.
   */
  async #attach(targetId: string, known?: Protocol.Target.TargetInfo): Promise<string> {
    const targetInfo =
      known ?? ((await this.#send("Target.getTargetInfo", { targetId })) as Protocol.Target.GetTargetInfoResponse).targetInfo;
    const { sessionId } = (await this.#send("Target.attachToTarget", {
      targetId,
      flatten: true,
    })) as Protocol.Target.AttachToTargetResponse;
    if (this.#closed) {
      void this.#send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
      throw new CdpFailure(-32000, "the connection closed");
    }
    this.#sessions.hold(sessionId, targetId);
    this.#emit({
      method: "Target.attachedToTarget",
      params: { sessionId, targetInfo: { ...targetInfo, attached: true }, waitingForDebugger: false },
    });
    return sessionId;
  }

  /** Detaches one of this connection's sessions, on the session it was attached under (the browser, or its parent). */
  async #detach(params: Record<string, unknown>): Promise<unknown> {
    const sessionId = typeof params.sessionId === "string" ? params.sessionId : this.#sessions.onTarget(params.targetId);
    const parent = sessionId === undefined ? null : this.#sessions.parentOf(sessionId);
    if (sessionId === undefined || parent === null) throw NO_SESSION();
    return this.#send("Target.detachFromTarget", { sessionId }, parent);
  }

  #onTargetInfo(info: Protocol.Target.TargetInfo, created: boolean): void {
    if (!this.#isOwnPage(info.targetId)) return;
    this.#show(info, created ? "Target.targetCreated" : "Target.targetInfoChanged");
    if (created && this.#autoAttach) void this.#autoAttachTo(info.targetId, info);
  }

  #show(info: Protocol.Target.TargetInfo, method = "Target.targetCreated"): void {
    const known = this.#shown.has(info.targetId);
    this.#shown.add(info.targetId);
    if (this.#discover)
      this.#emit({
        method: known && method === "Target.targetCreated" ? "Target.targetInfoChanged" : method,
        params: { targetInfo: info },
      });
  }

  #onTargetGone(method: string, event: { targetId: string }): void {
    if (!this.#shown.delete(event.targetId)) return;
    this.#attached.delete(event.targetId);
    if (this.#discover) this.#emit({ method, params: event });
  }

  #isOwnPage(targetId: unknown): boolean {
    const { browser, clients } = this.#options.services;
    return typeof targetId === "string" && browser.page(targetId) !== undefined && this.#clients.owns(clients.ownerOf(targetId));
  }

  /** The target id, when it names one of the client's pages; else Chrome's own "no target" error. */
  #ownPage(targetId: unknown): string {
    if (!this.#isOwnPage(targetId)) throw NO_TARGET();
    return targetId as string;
  }

  #checkUrl(url: unknown): void {
    if (typeof url !== "string") return;
    try {
      checkUrlAllowed(url, this.#options.services.config);
    } catch (error) {
      throw new CdpFailure(-32000, (error as Error).message);
    }
  }

  async #send(method: string, params: Record<string, unknown>, sessionId?: string): Promise<unknown> {
    // A budget rides the hub's shared deadline queue: cheaper per command than a timer of its own.
    const budget = new Budget(this.#options.commandTimeoutMs);
    try {
      return await this.#connection.rawSend({ method, params, sessionId }, { budget });
    } finally {
      budget.dispose();
    }
  }

  #emit(message: object): void {
    this.#outbox.send(message);
  }

  /** Ends the connection: its sessions detached, its hold on the context given back; the contexts it made and an ephemeral client's go with their tabs. */
  async #dispose(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#outbox.close();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    const topLevel = this.#sessions.topLevel();
    this.#sessions.forgetAll();
    if (!this.#connection.isClosed) {
      await Promise.all(topLevel.map((sessionId) => this.#send("Target.detachFromTarget", { sessionId }).catch(() => undefined)));
    }
    this.#downloads.dispose();
    await this.#clients.disposeAll();
  }
}
