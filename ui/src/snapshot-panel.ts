// The snapshot panel: the tab's accessibility tree as text with refs (snapshot), taken on demand.

import { h, setText } from "./dom.js";
import { errorText } from "./format.js";
import type { Rpc } from "./rpc.js";
import { Scope } from "./scope.js";
import type { SnapshotResult } from "./types.js";

/** The panel: `button#snapshot-refresh` and `pre#snapshot`. */
export class SnapshotPanel {
  readonly element: HTMLElement;
  private readonly text: HTMLPreElement;
  private readonly status: HTMLElement;
  private readonly button: HTMLButtonElement;
  private readonly scope = new Scope();
  private loaded = false;
  private busy = false;

  constructor(
    private readonly rpc: Rpc,
    private readonly target: string,
  ) {
    this.button = h("button", { id: "snapshot-refresh", type: "button" }, "Take a snapshot");
    this.text = h("pre", { id: "snapshot", class: "snapshot", tabindex: 0, "aria-label": "Accessibility snapshot" });
    this.status = h("p", { class: "status", role: "status", "aria-live": "polite" });
    this.element = h("div", { class: "snapshot-panel" }, h("div", { class: "controls" }, this.button), this.status, this.text);
    this.scope.listen(this.button, "click", () => void this.refresh());
  }

  /** The connection (re)opened: take a first snapshot (later ones only on demand). */
  connected(): void {
    if (!this.loaded) void this.refresh();
  }

  /** Drops what it was doing. */
  dispose(): void {
    this.scope.dispose();
  }

  /** Takes a snapshot and shows its text. */
  async refresh(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.text.setAttribute("aria-busy", "true");
    setText(this.status, "Taking a snapshot…");
    try {
      const answer = await this.rpc.call<SnapshotResult>("snapshot", { target: this.target });
      if (this.scope.isDisposed) return;
      this.loaded = true;
      setText(this.text, answer.text);
      this.text.dataset.snapshotId = answer.snapshotId;
      setText(this.status, `${answer.title || answer.url}, at ${new Date().toLocaleTimeString()}`);
    } catch (error) {
      if (!this.scope.isDisposed) setText(this.status, `Snapshot: ${errorText(error)}`);
    } finally {
      this.busy = false;
      this.text.removeAttribute("aria-busy");
    }
  }
}
