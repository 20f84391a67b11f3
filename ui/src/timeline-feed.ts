// A live tab's timeline in its view: timeline.get read page after page (`since`/`next`) into the timeline panel,
// then read again every few seconds while the view is open, and once more when the tab closes. A button saves the
// timeline as a file (timeline.export) that the dashboard opens later with no hub.

import { h } from "./dom.js";
import { errorText, isDisconnect } from "./format.js";
import { RpcError, type Rpc } from "./rpc.js";
import { Scope } from "./scope.js";
import type { TimelinePage } from "./timeline-data.js";
import { TimelinePanel } from "./timeline-panel.js";

/** How often an open tab's timeline is read again (new entries only: `since` the last one shown). */
const POLL_MS = 2_000;
/** timeline.get's largest page. */
const PAGE_LIMIT = 1_000;
/** At most this many pages a read (the hub keeps TIMELINE_MAX_ENTRIES, 5,000 by default): the rest comes next time. */
const MAX_PAGES = 20;
/** The hub's answers after which reading again would get the same: no such tab for this session, no right, no method. */
const FINAL_CODES = new Set([-32002, -32007, -32601, -32602]);

/** The timeline of one open tab: a TimelinePanel fed from the hub, and `button#timeline-export`. */
export class TimelineFeed {
  readonly element: HTMLElement;
  private readonly panel = new TimelinePanel();
  private readonly scope = new Scope();
  private readonly exportButton: HTMLButtonElement;
  private since = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private reading = false;
  /** A read was asked for while one ran: it runs again when that one ends. */
  private again = false;
  private isOpen = false;
  /** No more reads: the tab closed and its last entries were read, or the hub says there is no such tab. */
  private done = false;

  constructor(
    private readonly rpc: Rpc,
    private readonly target: string,
  ) {
    this.exportButton = h("button", { id: "timeline-export", type: "button" }, "Save as a file");
    this.element = h("div", { class: "timeline-feed" }, h("div", { class: "controls" }, this.exportButton), this.panel.element);
    this.scope.listen(this.exportButton, "click", () => void this.save());
    this.scope.add(() => clearTimeout(this.timer));
  }

  /** The connection (re)opened: read what is new, then keep reading. */
  connected(): void {
    this.isOpen = true;
    void this.read();
  }

  /** The connection closed: no reads until it is back. */
  disconnected(): void {
    this.isOpen = false;
    clearTimeout(this.timer);
  }

  /** The tab closed: its timeline is read once more, to its last entries (`closed` in the answer), then no more. */
  tabClosed(): void {
    clearTimeout(this.timer);
    void this.read();
  }

  /** Stops reading. */
  dispose(): void {
    this.scope.dispose();
    this.panel.dispose();
  }

  /** Reads the entries after the last one shown, page after page, then schedules the next read. */
  private async read(): Promise<void> {
    if (this.scope.isDisposed || !this.isOpen || this.done) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.again = false;
    try {
      for (let pages = 0; pages < MAX_PAGES; pages++) {
        const params = { target: this.target, since: this.since, limit: PAGE_LIMIT };
        const page = await this.rpc.call<TimelinePage>("timeline.get", params);
        if (this.scope.isDisposed) return;
        this.panel.add(page.entries);
        this.since = Math.max(this.since, page.next);
        if (page.closed) this.done = true;
        if (page.entries.length === 0) break;
      }
      this.panel.status(this.done ? "The tab closed: this is its whole timeline." : "");
    } catch (error) {
      this.failed(error);
    } finally {
      this.reading = false;
      this.schedule();
    }
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.done || !this.isOpen || this.scope.isDisposed) return;
    this.timer = setTimeout(() => void this.read(), this.again ? 0 : POLL_MS);
  }

  private failed(error: unknown): void {
    if (this.scope.isDisposed || isDisconnect(error)) return;
    if (error instanceof RpcError && typeof error.code === "number" && FINAL_CODES.has(error.code)) this.done = true;
    this.panel.status(`Timeline: ${errorText(error)}`);
  }

  /** Saves the timeline as the file timeline.export gives (JSON lines, pictures inline) through a download. */
  private async save(): Promise<void> {
    this.exportButton.disabled = true;
    try {
      const { content } = await this.rpc.call<{ content: string }>("timeline.export", { target: this.target });
      const url = URL.createObjectURL(new Blob([content], { type: "application/x-ndjson" }));
      const link = h("a", { href: url, download: `timeline-${this.target.replace(/[^A-Za-z0-9_-]+/g, "-")}.jsonl`, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      if (!this.scope.isDisposed) this.panel.status(`Save: ${errorText(error)}`);
    } finally {
      this.exportButton.disabled = false;
    }
  }
}
