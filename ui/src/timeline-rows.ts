// How a timeline's entries read on the page: one row each, and a step's details with its before and after pictures.
// Every text of an entry goes in as text (h() makes text nodes), never as HTML: a page's console may say anything.

import { h } from "./dom.js";
import { duration, preciseTime } from "./format.js";
import { type TimelineEntry, type TimelinePicture, pictureSrc } from "./timeline-data.js";

/** What a row says after its summary: who made a call and how it ended, a request's status, a message's level. */
function rowNotes(entry: TimelineEntry): string {
  const notes: string[] = [];
  if (entry.caller) notes.push(entry.caller.who);
  if (entry.outcome) notes.push(entry.outcome);
  if (entry.kind === "network" && entry.status !== undefined) notes.push(entry.status === 0 ? "failed" : String(entry.status));
  if (entry.durationMs !== undefined) notes.push(duration(entry.durationMs));
  if (entry.before || entry.after) notes.push("pictures");
  return notes.join(" · ");
}

/**
 * One entry as a list item `li.timeline-row[data-seq][data-kind]` (with `data-method`, `data-caller`, `data-outcome`
 * or `data-level` where the entry has them): its time, kind, summary (a `button.timeline-step` for a call, which
 * selects it) and notes.
 */
export function timelineRow(entry: TimelineEntry): HTMLLIElement {
  const summary =
    entry.kind === "call"
      ? h("button", { type: "button", class: "timeline-step timeline-summary", "data-seq": entry.seq }, entry.summary)
      : h("span", { class: "timeline-summary" }, entry.summary);
  const at = new Date(entry.at);
  return h(
    "li",
    {
      class: "timeline-row",
      "data-seq": entry.seq,
      "data-kind": entry.kind,
      "data-method": entry.kind === "call" ? (entry.method ?? null) : null,
      "data-caller": entry.caller?.who ?? null,
      "data-outcome": entry.outcome ?? null,
      "data-level": entry.level ?? null,
    },
    h("time", { class: "timeline-time", datetime: at.toISOString(), title: at.toLocaleString() }, preciseTime(entry.at)),
    h("span", { class: "timeline-kind" }, entry.kind),
    summary,
    h("span", { class: "timeline-notes" }, rowNotes(entry)),
  );
}

/** A picture with its caption, or "no picture". */
function pictureFigure(id: string, caption: string, picture: TimelinePicture | undefined): HTMLElement {
  const shown = picture
    ? h("img", {
        id,
        class: "timeline-picture",
        alt: `The page ${caption.toLowerCase()} the step`,
        width: picture.width,
        height: picture.height,
      })
    : h("p", { id, class: "no-picture" }, "no picture");
  if (picture && shown instanceof HTMLImageElement) shown.src = pictureSrc(picture);
  return h("figure", { class: "timeline-figure" }, shown, h("figcaption", {}, caption));
}

/** A fact of a step as a term and its description, left out when it has no value. */
function fact(term: string, value: string | undefined): HTMLElement[] {
  return value ? [h("dt", {}, term), h("dd", {}, value)] : [];
}

/**
 * A selected step's details: `#timeline-detail` with its summary, caller, outcome, duration and trace id, and its
 * pictures `img#timeline-before` and `img#timeline-after` (or `p.no-picture` with the same ids).
 */
export function stepDetail(entry: TimelineEntry, place: string): HTMLElement {
  const caller = entry.caller ? `${entry.caller.who} (${entry.caller.kind})` : undefined;
  return h(
    "section",
    { id: "timeline-detail", class: "timeline-detail", "data-seq": entry.seq, "aria-label": "The selected step" },
    h("h3", { class: "timeline-detail-title" }, entry.summary),
    h(
      "dl",
      { class: "timeline-facts" },
      ...fact("Step", place),
      ...fact("At", preciseTime(entry.at)),
      ...fact("Caller", caller),
      ...fact("Outcome", entry.outcome),
      ...fact("Duration", entry.durationMs !== undefined ? duration(entry.durationMs) : undefined),
      ...fact("Trace", entry.traceId),
    ),
    h(
      "div",
      { class: "timeline-pictures" },
      pictureFigure("timeline-before", "Before", entry.before),
      pictureFigure("timeline-after", "After", entry.after),
    ),
  );
}
