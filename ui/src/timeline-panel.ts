// The timeline panel: a tab's timeline as rows in seq order (the calls, "steps", and the page's console, network and
// other entries between them), filters by kind and by caller, a selected step's before and after pictures, and a
// scrubber over the steps that shows the page as it was at each. It is fed entries (from the hub, or from a file).

import { h, replaceChildren, setText } from "./dom.js";
import { Scope } from "./scope.js";
import { TIMELINE_KINDS, type TimelineEntry, type TimelineKind, pageAt, pictureSrc } from "./timeline-data.js";
import { stepDetail, timelineRow } from "./timeline-rows.js";

// The hub keeps at most TIMELINE_MAX_ENTRIES (5,000 by default) a tab; the page keeps no more than this of them.
const MAX_ROWS = 10_000;
const ALL_CALLERS = "";

/**
 * The panel: `fieldset#timeline-kinds` (an `input[name=timeline-kind]` checkbox per kind), `select#timeline-caller`,
 * `input#timeline-scrub` (a range over the steps) with `output#timeline-scrub-label` and `img#timeline-page` (or
 * `p#timeline-page-none`), `#timeline-selected` (the selected step's details), `p#timeline-status` and `ol#timeline`.
 */
export class TimelinePanel {
  readonly element: HTMLElement;
  private readonly scope = new Scope();
  private readonly list: HTMLOListElement;
  private readonly statusLine: HTMLElement;
  private readonly kinds = new Map<TimelineKind, HTMLInputElement>();
  private readonly caller: HTMLSelectElement;
  private readonly scrub: HTMLInputElement;
  private readonly scrubLabel: HTMLOutputElement;
  private readonly page: HTMLImageElement;
  private readonly pageNone: HTMLElement;
  private readonly selected: HTMLElement;
  private readonly rows = new Map<number, HTMLLIElement>();
  private readonly entries = new Map<number, TimelineEntry>();
  /** The calls, oldest first: the scrubber's stops. */
  private steps: TimelineEntry[] = [];
  private readonly callers = new Set<string>();
  private lastSeq = 0;
  /** The seq of the selected step (0: none). */
  private selectedSeq = 0;
  /** Whether the scrubber stays on the newest step as steps come (until the reader moves it elsewhere). */
  private following = true;

  constructor() {
    const kindBoxes = TIMELINE_KINDS.map((kind) => this.kindBox(kind));
    this.caller = h("select", { id: "timeline-caller" }, h("option", { value: ALL_CALLERS }, "All callers"));
    this.scrub = h("input", { id: "timeline-scrub", type: "range", min: 0, max: 0, step: 1, value: 0, disabled: true });
    this.scrubLabel = h("output", { id: "timeline-scrub-label", for: "timeline-scrub", class: "timeline-scrub-label" }, "No steps yet");
    this.page = h("img", { id: "timeline-page", class: "timeline-picture", alt: "The page as it was at this step", hidden: true });
    this.pageNone = h("p", { id: "timeline-page-none", class: "no-picture" }, "no picture");
    this.selected = h("div", { id: "timeline-selected" }, h("p", { class: "hint" }, "Select a step to see its pictures."));
    this.statusLine = h("p", { id: "timeline-status", class: "status", role: "status", "aria-live": "polite" });
    this.list = h("ol", { id: "timeline", class: "timeline", "aria-label": "Timeline entries" });
    const filters = h(
      "div",
      { class: "controls timeline-filters" },
      h("fieldset", { id: "timeline-kinds", class: "timeline-kinds" }, h("legend", {}, "Kinds"), ...kindBoxes),
      h("label", { for: "timeline-caller" }, "Calls by"),
      this.caller,
    );
    const replay = h(
      "div",
      { class: "timeline-replay" },
      h("label", { for: "timeline-scrub" }, "Page at step"),
      this.scrub,
      this.scrubLabel,
      h("div", { class: "timeline-page" }, this.page, this.pageNone),
    );
    this.element = h("div", { class: "timeline-panel" }, this.statusLine, filters, replay, this.selected, this.list);
    this.scope.listen(this.caller, "change", () => this.applyFilters());
    this.scope.listen(this.scrub, "input", () => this.onScrub());
    this.scope.listen(this.list, "click", (event) => this.onListClick(event));
  }

  /** Says something of where the entries come from, or why there are none ("" clears it). */
  status(text: string): void {
    setText(this.statusLine, text);
  }

  /** Whether the panel shows no entry. */
  get isEmpty(): boolean {
    return this.entries.size === 0;
  }

  /** Adds entries newer than those shown, in seq order. */
  add(entries: readonly TimelineEntry[]): void {
    const fresh = entries.filter((entry) => entry.seq > this.lastSeq).sort((a, b) => a.seq - b.seq);
    if (fresh.length === 0) return;
    for (const entry of fresh) this.addOne(entry);
    this.lastSeq = fresh.at(-1)?.seq ?? this.lastSeq;
    while (this.entries.size > MAX_ROWS) this.dropOldest();
    this.steps = [...this.entries.values()].filter((entry) => entry.kind === "call");
    this.updateScrubber();
  }

  /** Forgets every entry (a timeline that started again). */
  clear(): void {
    this.list.replaceChildren();
    this.rows.clear();
    this.entries.clear();
    this.steps = [];
    this.lastSeq = 0;
    this.selectedSeq = 0;
    this.following = true;
    replaceChildren(this.selected, h("p", { class: "hint" }, "Select a step to see its pictures."));
    this.updateScrubber();
  }

  /** Stops listening. */
  dispose(): void {
    this.scope.dispose();
  }

  private kindBox(kind: TimelineKind): HTMLElement {
    const box = h("input", { type: "checkbox", name: "timeline-kind", value: kind, id: `timeline-kind-${kind}`, checked: true });
    this.kinds.set(kind, box);
    this.scope.listen(box, "change", () => this.applyFilters());
    return h("label", { class: "timeline-kind-choice" }, box, ` ${kind}`);
  }

  private addOne(entry: TimelineEntry): void {
    const row = timelineRow(entry);
    row.hidden = !this.matches(entry);
    this.entries.set(entry.seq, entry);
    this.rows.set(entry.seq, row);
    this.list.append(row);
    const who = entry.caller?.who;
    if (who && !this.callers.has(who)) {
      this.callers.add(who);
      this.caller.append(h("option", { value: who }, who));
    }
  }

  private dropOldest(): void {
    const oldest = this.entries.keys().next();
    if (oldest.done) return;
    this.entries.delete(oldest.value);
    this.rows.get(oldest.value)?.remove();
    this.rows.delete(oldest.value);
  }

  /** Whether an entry passes the filters: its kind is ticked, and a call is by the chosen caller (events have none). */
  private matches(entry: TimelineEntry): boolean {
    if (this.kinds.get(entry.kind)?.checked === false) return false;
    const who = this.caller.value;
    return who === ALL_CALLERS || entry.kind !== "call" || entry.caller?.who === who;
  }

  private applyFilters(): void {
    for (const [seq, row] of this.rows) {
      const entry = this.entries.get(seq);
      row.hidden = !entry || !this.matches(entry);
    }
  }

  private onListClick(event: MouseEvent): void {
    const button = (event.target as Element | null)?.closest?.("button.timeline-step");
    const seq = Number(button?.getAttribute("data-seq"));
    const index = this.steps.findIndex((step) => step.seq === seq);
    if (index < 0) return;
    this.following = false;
    this.select(index);
  }

  private onScrub(): void {
    const index = Number(this.scrub.value);
    this.following = index === this.steps.length - 1;
    this.select(index);
  }

  /** Selects the step at an index: its row is marked, its details and pictures shown, the scrubber set to it. */
  private select(index: number): void {
    const step = this.steps[index];
    if (!step) return;
    this.rows.get(this.selectedSeq)?.removeAttribute("aria-current");
    this.selectedSeq = step.seq;
    const row = this.rows.get(step.seq);
    row?.setAttribute("aria-current", "step");
    row?.scrollIntoView({ block: "nearest" });
    replaceChildren(this.selected, stepDetail(step, `${index + 1} of ${this.steps.length}`));
    this.scrub.value = String(index);
    this.showPage(index);
  }

  /** Sets the scrubber's range to the steps; while following, it moves to the newest. */
  private updateScrubber(): void {
    const count = this.steps.length;
    this.scrub.disabled = count === 0;
    this.scrub.max = String(Math.max(0, count - 1));
    if (count === 0) {
      setText(this.scrubLabel, "No steps yet");
      this.showPage(-1);
      return;
    }
    const selected = this.steps.findIndex((step) => step.seq === this.selectedSeq);
    const index = this.following || selected < 0 ? count - 1 : selected;
    this.scrub.value = String(index);
    this.showPage(index);
  }

  /** Shows the page as it was at the step at an index: the newest picture after a step up to it, else its before. */
  private showPage(index: number): void {
    const step = this.steps[index];
    setText(this.scrubLabel, step ? `Step ${index + 1} of ${this.steps.length}: ${step.summary}` : "No steps yet");
    const picture = index < 0 ? undefined : pageAt(this.steps, index);
    const src = picture ? pictureSrc(picture) : "";
    this.page.hidden = !picture;
    this.pageNone.hidden = Boolean(picture);
    if (picture && this.page.getAttribute("src") !== src) this.page.src = src;
    this.page.dataset.seq = String(step?.seq ?? "");
  }
}
