import { EventEmitter } from "node:events";
import type { Browser, BrowserEvents, PageInfo } from "../../../src/cdp/browser.js";
import { CdpConnection } from "../../../src/cdp/connection.js";
import type { CdpTransport, TransportListener } from "../../../src/cdp/transport.js";

/** A command the hub sent to the fake Chrome. */
export interface SentCommand {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

/**
 * Chrome's end of a CDP connection, in memory: it answers `Target.attachToTarget` with a new session id and every
 * other command with `{}`, unless the test's `answer` says otherwise (an object, or null to never answer).
 */
export class FakeChrome implements CdpTransport {
  readonly description = "a fake Chrome";
  readonly maxMessageBytes = 1024 * 1024;
  readonly sent: SentCommand[] = [];
  answer: (command: SentCommand) => object | null = () => ({});
  #listener: TransportListener | null = null;
  #sessions = 0;

  listen(listener: TransportListener): void {
    this.#listener = listener;
  }

  send(text: string): void {
    const command = JSON.parse(text) as SentCommand;
    this.sent.push(command);
    const result = command.method === "Target.attachToTarget" ? { sessionId: `S${++this.#sessions}` } : this.answer(command);
    if (result === null) return;
    const reply = { id: command.id, result, ...(command.sessionId ? { sessionId: command.sessionId } : {}) };
    queueMicrotask(() => this.#listener?.message(JSON.stringify(reply)));
  }

  /** Sends an event, on a session when `sessionId` is given. */
  event(method: string, params: object, sessionId?: string): void {
    this.#listener?.message(JSON.stringify({ method, params, ...(sessionId ? { sessionId } : {}) }));
  }

  close(): void {
    this.#listener?.closed();
  }

  /** The commands of one method, in the order sent. */
  commands(method: string): SentCommand[] {
    return this.sent.filter((command) => command.method === method);
  }
}

/** The part of Browser the pool and the client manager use, over a FakeChrome; pages come and go as the test says. */
export class FakeBrowser extends EventEmitter<BrowserEvents> {
  readonly chrome = new FakeChrome();
  readonly #connection = new CdpConnection(this.chrome);
  #pages = new Map<string, PageInfo>();
  isUp = true;

  connection(): CdpConnection {
    return this.#connection;
  }

  page(tabId: string): PageInfo | undefined {
    return this.#pages.get(tabId);
  }

  pages(): PageInfo[] {
    return [...this.#pages.values()];
  }

  /** A page appears, as Target.targetCreated would make it. */
  open(page: PageInfo): void {
    this.#pages.set(page.tabId, page);
    this.emit("pageCreated", page);
  }

  /** A page goes, as Target.targetDestroyed would. */
  close(tabId: string): void {
    this.#pages.delete(tabId);
    this.emit("pageDestroyed", tabId, "closed");
  }

  giveUpPage(): void {}

  /** As Browser.onPageGone: each page that goes. */
  onPageGone(listener: (tabId: string) => void): void {
    this.on("pageDestroyed", (tabId) => listener(tabId));
  }

  /** This fake where a Browser is expected. */
  asBrowser(): Browser {
    return this as unknown as Browser;
  }
}
