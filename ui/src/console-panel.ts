// The console panel: the tab's console messages as they come (console.subscribe), each with its time, with a level
// and a text filter; it follows new messages while scrolled to the bottom.

import { h, setText } from "./dom.js";
import { errorText, isDisconnect, preciseTime } from "./format.js";
import type { Rpc } from "./rpc.js";
import { Scope } from "./scope.js";
import type { ConsoleMessage } from "./types.js";

const MAX_LINES = 500;
// How close to the bottom (px) still counts as at the bottom: the list follows new messages from there.
const BOTTOM_SLACK_PX = 24;

/** The level filter's choices: the option's value and the console levels it shows. */
const LEVEL_CHOICES: Array<{ value: string; label: string; levels: string[] | null }> = [
  { value: "all", label: "All levels", levels: null },
  { value: "debug", label: "Debug", levels: ["debug"] },
  { value: "info", label: "Info and log", levels: ["info", "log"] },
  { value: "warning", label: "Warnings", levels: ["warn"] },
  { value: "error", label: "Errors", levels: ["error"] },
];

/**
 * The panel: `select#console-level`, `input#console-filter`, `ol#console` (one `li[data-level]` per message, its
 * `time` and its `.console-text`), and `button#console-follow`, shown while the list does not follow new messages.
 */
export class ConsolePanel {
  readonly element: HTMLElement;
  private readonly list: HTMLOListElement;
  private readonly level: HTMLSelectElement;
  private readonly filter: HTMLInputElement;
  private readonly status: HTMLElement;
  private readonly follow: HTMLButtonElement;
  private readonly scope = new Scope();
  /** Whether new messages scroll the list to them (it was at its bottom); scrolling up stops it. */
  private following = true;
  private subscriptionId: string | null = null;
  private attempt = 0;
  /** The newest message's timestamp and the texts logged at it. */
  private newest = { timestamp: -Infinity, texts: [] as string[] };
  /** After a reconnection, what was shown already: the replay's messages up to it are skipped. */
  private cutoff: { timestamp: number; texts: string[] } | null = null;

  constructor(
    private readonly rpc: Rpc,
    private readonly target: string,
  ) {
    this.level = h("select", { id: "console-level" }, ...LEVEL_CHOICES.map((choice) => h("option", { value: choice.value }, choice.label)));
    this.filter = h("input", { id: "console-filter", type: "search", placeholder: "Filter text", autocomplete: "off" });
    this.list = h("ol", { id: "console", class: "console", "aria-label": "Console messages" });
    this.status = h("p", { class: "status", role: "status", "aria-live": "polite" });
    this.follow = h("button", { id: "console-follow", type: "button", class: "console-follow", hidden: true }, "↓ Newest messages");
    const controls = h(
      "div",
      { class: "controls" },
      h("label", { for: "console-level" }, "Level"),
      this.level,
      h("label", { for: "console-filter" }, "Text"),
      this.filter,
    );
    this.element = h("div", { class: "console-panel" }, controls, this.status, this.list, this.follow);
    this.scope.listen(this.list, "scroll", () => this.onScroll());
    this.scope.listen(this.follow, "click", () => {
      this.following = true;
      this.scrollToEnd();
    });
    this.scope.listen(this.level, "change", () => this.applyFilter());
    this.scope.listen(this.filter, "input", () => this.applyFilter());
    this.scope.add(rpc.on<ConsoleMessage>("console.message", (message) => this.receive(message)));
    this.scope.add(
      rpc.on<{ subscriptionId: string; count: number }>("console.dropped", ({ subscriptionId, count }) => {
        if (subscriptionId === this.subscriptionId) setText(this.status, `${count} messages were lost (the page read too slowly).`);
      }),
    );
  }

  /** The connection (re)opened: subscribe, with the messages logged since the tab's last navigation first. */
  connected(): void {
    const attempt = ++this.attempt;
    this.subscriptionId = null;
    this.rpc
      .call<{ subscriptionId: string }>("console.subscribe", { target: this.target, replay: true })
      .then(({ subscriptionId }) => {
        if (this.scope.isDisposed || attempt !== this.attempt) {
          this.unsubscribe(subscriptionId);
          return;
        }
        this.subscriptionId = subscriptionId;
        setText(this.status, "");
      })
      .catch((error: unknown) => {
        if (attempt === this.attempt) setText(this.status, `Console: ${errorText(error)}`);
      });
  }

  /** The connection closed: the subscription ended with it. */
  disconnected(): void {
    this.attempt += 1;
    this.subscriptionId = null;
    if (this.newest.timestamp > -Infinity) this.cutoff = { timestamp: this.newest.timestamp, texts: [...this.newest.texts] };
  }

  /** Unsubscribes and stops listening. */
  dispose(): void {
    if (this.subscriptionId) this.unsubscribe(this.subscriptionId);
    this.subscriptionId = null;
    this.scope.dispose();
  }

  private receive(message: ConsoleMessage): void {
    // Messages may come before console.subscribe's answer does: take those of this tab while subscribing.
    if (this.subscriptionId ? message.subscriptionId !== this.subscriptionId : message.target !== this.target) return;
    if (this.seen(message)) return;
    const at = message.timestamp ? new Date(message.timestamp) : null;
    const item = h(
      "li",
      { "data-level": message.level, "data-source": message.source },
      at && h("time", { class: "console-time", datetime: at.toISOString(), title: at.toLocaleString() }, preciseTime(message.timestamp)),
      h("span", { class: "console-text" }, message.text),
    );
    item.hidden = !this.matches(item);
    this.list.append(item);
    while (this.list.childElementCount > MAX_LINES) this.dropOldest();
    if (this.following) this.scrollToEnd();
    else this.follow.hidden = false;
  }

  /** Removes the oldest line; a reader scrolled up keeps the lines they read where they are. */
  private dropOldest(): void {
    const oldest = this.list.firstElementChild as HTMLElement | null;
    if (!oldest) return;
    const height = oldest.offsetHeight;
    oldest.remove();
    if (!this.following) this.list.scrollTop = Math.max(0, this.list.scrollTop - height);
  }

  private scrollToEnd(): void {
    this.list.scrollTop = this.list.scrollHeight;
    this.follow.hidden = true;
  }

  /** A reader who scrolls up stops the following; back at the bottom, it goes on. */
  private onScroll(): void {
    const { scrollTop, clientHeight, scrollHeight } = this.list;
    this.following = scrollTop + clientHeight >= scrollHeight - BOTTOM_SLACK_PX;
    if (this.following) this.follow.hidden = true;
  }

  /** Whether a message was shown before: a replay after a reconnection sends the tab's recent messages again. */
  private seen(message: ConsoleMessage): boolean {
    const { timestamp, text } = message;
    if (timestamp > this.newest.timestamp) this.newest = { timestamp, texts: [text] };
    else if (timestamp === this.newest.timestamp) this.newest.texts.push(text);
    if (!this.cutoff) return false;
    if (timestamp < this.cutoff.timestamp) return true;
    const index = timestamp === this.cutoff.timestamp ? this.cutoff.texts.indexOf(text) : -1;
    if (index >= 0) {
      this.cutoff.texts.splice(index, 1);
      return true;
    }
    if (timestamp > this.cutoff.timestamp) this.cutoff = null;
    return false;
  }

  private matches(item: HTMLElement): boolean {
    const choice = LEVEL_CHOICES.find((candidate) => candidate.value === this.level.value);
    if (choice?.levels && !choice.levels.includes(item.dataset.level ?? "")) return false;
    const needle = this.filter.value.trim().toLowerCase();
    const text = item.querySelector(".console-text")?.textContent ?? "";
    return !needle || text.toLowerCase().includes(needle);
  }

  private applyFilter(): void {
    for (const item of this.list.children) (item as HTMLElement).hidden = !this.matches(item as HTMLElement);
    if (this.following) this.scrollToEnd();
  }

  private unsubscribe(subscriptionId: string): void {
    if (!this.rpc.isOpen) return;
    this.rpc.call("console.unsubscribe", { subscriptionId }).catch((error: unknown) => {
      if (!isDisconnect(error)) console.warn(`console.unsubscribe: ${errorText(error)}`);
    });
  }
}
