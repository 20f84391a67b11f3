// The tab view's URL bar: back, forward and reload, the tab's URL (kept current by tab.updated), Enter to load another.

import { h, setText } from "./dom.js";
import { errorText } from "./format.js";
import type { Rpc } from "./rpc.js";
import { Scope } from "./scope.js";

// A navigation's budget on the hub (a move in history or a reload too), and the page's own wait for its answer a little longer.
const NAVIGATE_TIMEOUT_MS = 30_000;
const ANSWER_SLACK_MS = 2_000;

/** What a typed address means: as typed when it has a scheme, else http for this machine and https for the rest. */
export function addressOf(typed: string): string {
  const text = typed.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^(about|data|blob|javascript|file|chrome):/i.test(text)) return text;
  const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i.test(text);
  return `${local ? "http" : "https"}://${text}`;
}

/** The browser's buttons before the address: each a method of the hub that answers as navigate does. */
const MOVES = [
  { id: "tab-back", method: "tabs.back", label: "Back", text: "←" },
  { id: "tab-forward", method: "tabs.forward", label: "Forward", text: "→" },
  { id: "tab-reload", method: "tabs.reload", label: "Reload", text: "↻" },
] as const;

/** The bar: `form#url-bar` with the buttons `#tab-back`, `#tab-forward`, `#tab-reload` and `input#tab-url`. */
export class UrlBar {
  readonly element: HTMLFormElement;
  private readonly input: HTMLInputElement;
  private readonly status: HTMLElement;
  private readonly buttons: HTMLButtonElement[];
  private readonly scope = new Scope();
  private url = "";

  constructor(
    private readonly rpc: Rpc,
    private readonly target: string,
  ) {
    this.input = h("input", {
      id: "tab-url",
      type: "text",
      inputmode: "url",
      autocomplete: "off",
      spellcheck: "false",
      "aria-label": "Address: type a URL and press Enter to load it in the tab",
    });
    this.status = h("p", { id: "url-status", class: "status", role: "status", "aria-live": "polite" });
    this.buttons = MOVES.map(({ id, method, label, text }) => {
      const button = h("button", { id, type: "button", class: "url-move", title: label, "aria-label": label }, text);
      this.scope.listen(button, "click", () => void this.go(method, {}));
      return button;
    });
    this.element = h("form", { id: "url-bar", class: "url-bar", "aria-label": "Address" }, ...this.buttons, this.input);
    this.scope.listen(this.element, "submit", (event) => {
      event.preventDefault();
      void this.go("navigate", { url: addressOf(this.input.value) });
    });
    // Leaving the field without Enter gives back the tab's URL.
    this.scope.listen(this.input, "blur", () => this.show(this.url));
    this.scope.listen(this.input, "keydown", (event) => {
      if (event.key !== "Escape") return;
      this.input.value = this.url;
      this.input.select();
    });
  }

  /** Where the bar says what a navigation is doing, or why it failed. */
  get statusElement(): HTMLElement {
    return this.status;
  }

  /** The tab's URL now; the field keeps what a person is typing until they leave it. */
  show(url: string): void {
    this.url = url;
    if (document.activeElement !== this.input) this.input.value = url;
  }

  /** The tab went: nothing to navigate any more. */
  disable(): void {
    this.input.disabled = true;
    for (const button of this.buttons) button.disabled = true;
  }

  /** Stops listening. */
  dispose(): void {
    this.scope.dispose();
  }

  /**
   * Calls navigate, tabs.back, tabs.forward or tabs.reload and says how it went (the tab on the first page of its
   * history, say, in the hub's words); the answer and tab.updated bring the new URL.
   */
  private async go(method: "navigate" | (typeof MOVES)[number]["method"], params: { url?: string }): Promise<void> {
    if (!this.rpc.isOpen) return;
    setText(this.status, "Loading…");
    try {
      const result = await this.rpc.call<{ url?: string }>(
        method,
        { target: this.target, ...params, timeoutMs: NAVIGATE_TIMEOUT_MS },
        { timeoutMs: NAVIGATE_TIMEOUT_MS + ANSWER_SLACK_MS },
      );
      if (this.scope.isDisposed) return;
      setText(this.status, "");
      this.input.blur();
      if (typeof result.url === "string") this.show(result.url);
    } catch (error) {
      if (!this.scope.isDisposed) setText(this.status, `${method}: ${errorText(error)}`);
    }
  }
}
