// The timeline file view (#/timeline-file): a timeline exported by timeline.export or `tabwire timeline export`, read
// in the browser (FileReader) and shown in the timeline panel, with no call to the hub: a closed tab's, after the
// hub that had it is gone. The file never leaves the page.

import { h, setText } from "./dom.js";
import { bytes, errorText } from "./format.js";
import { Scope } from "./scope.js";
import { type TimelineEntry, type TimelineHeader, parseTimelineFile } from "./timeline-data.js";
import { TimelinePanel } from "./timeline-panel.js";
import type { View } from "./view.js";

// An export is at most the hub's MAX_RESULT_BYTES; a file far larger is not one, and would only hold the page up.
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Reads a file as text with a FileReader. */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === "string" ? reader.result : "");
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsText(file);
  });
}

/** What the header says of the tab: `alpha:1A2B… · https://… · exported 14:03:07 by hub 0.3.0`. */
function headerText(header: TimelineHeader): string {
  const exported = header.exportedAt ? new Date(header.exportedAt).toLocaleString() : "an unknown time";
  return `${header.title || header.url || header.target} · ${header.target} · ${header.url} · exported ${exported}${header.hub ? ` by hub ${header.hub}` : ""}`;
}

/**
 * The view: `input#timeline-file` (type file), `p#timeline-file-status` (role alert: what is wrong with a file that
 * is not an export), `p#timeline-file-tab` (whose timeline it is) and the timeline panel.
 */
export class TimelineFileView implements View {
  readonly element: HTMLElement;
  readonly title = "Timeline file · tabwire";
  private readonly scope = new Scope();
  private readonly input: HTMLInputElement;
  private readonly fileStatus: HTMLElement;
  private readonly tab: HTMLElement;
  private panel: TimelinePanel | null = null;
  private readonly panelSlot: HTMLElement;
  private reads = 0;

  constructor() {
    this.input = h("input", {
      id: "timeline-file",
      type: "file",
      accept: ".jsonl,.ndjson,.json,.txt,application/x-ndjson,application/json,text/plain",
    });
    this.fileStatus = h("p", { id: "timeline-file-status", class: "status", role: "alert", "data-kind": null });
    this.tab = h("p", { id: "timeline-file-tab", class: "timeline-file-tab" });
    this.panelSlot = h("div", { class: "timeline-file-panel" });
    this.element = h(
      "div",
      { class: "timeline-file-view" },
      h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { id: "back", href: "#/" }, "← Overview")),
      h("h1", {}, "Timeline file"),
      h(
        "p",
        { class: "hint" },
        "Open a file saved from a tab's timeline (timeline.export, `tabwire timeline export`, or the tab view's “Save as a file”). It is read here, in the browser: it is not sent anywhere.",
      ),
      h("div", { class: "controls" }, h("label", { for: "timeline-file" }, "Timeline file"), this.input),
      this.fileStatus,
      this.tab,
      this.panelSlot,
    );
    this.scope.listen(this.input, "change", () => void this.open());
  }

  /** The file needs no hub: nothing to do when the connection opens or closes. */
  connected(): void {}

  disconnected(): void {}

  /** Drops the file shown. */
  dispose(): void {
    this.scope.dispose();
    this.panel?.dispose();
  }

  /** Reads the chosen file and shows its timeline, or says why it is not one. */
  private async open(): Promise<void> {
    const file = this.input.files?.[0];
    if (!file) return;
    const read = ++this.reads;
    this.showStatus(`Reading ${file.name}…`);
    try {
      if (file.size > MAX_FILE_BYTES) throw new Error(`${file.name} is ${bytes(file.size)}: more than an exported timeline can be.`);
      const { header, entries } = parseTimelineFile(await readText(file));
      if (read !== this.reads || this.scope.isDisposed) return;
      this.showFile(header, entries, file.name);
    } catch (error) {
      if (read === this.reads && !this.scope.isDisposed) this.showStatus(errorText(error), true);
    }
  }

  /** Shows a file's tab and its entries in a fresh panel. */
  private showFile(header: TimelineHeader, entries: TimelineEntry[], name: string): void {
    this.panel?.dispose();
    const panel = new TimelinePanel();
    this.panel = panel;
    this.panelSlot.replaceChildren(panel.element);
    panel.add(entries);
    panel.status(`${entries.length} entries from ${name}.`);
    setText(this.tab, headerText(header));
    this.say("");
  }

  /** Shows a status line alone (reading, or what is wrong with the file): no panel. */
  private showStatus(status: string, isError = false): void {
    this.panel?.dispose();
    this.panel = null;
    this.panelSlot.replaceChildren();
    setText(this.tab, "");
    this.say(status, isError);
  }

  private say(status: string, isError = false): void {
    setText(this.fileStatus, status);
    if (isError) this.fileStatus.dataset.kind = "error";
    else delete this.fileStatus.dataset.kind;
  }
}
