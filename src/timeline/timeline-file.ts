import type { TimelineEntry } from "../protocol/types.js";
import type { TabTimeline } from "./tab-timelines.js";

/** The version of the export's format, in its header line's `tabwireTimeline`. */
export const TIMELINE_FILE_VERSION = 1;

/** The first line of an exported timeline: what it is, of which tab, from which hub. */
export interface TimelineHeader {
  tabwireTimeline: typeof TIMELINE_FILE_VERSION;
  target: string;
  url: string;
  title: string;
  exportedAt: number;
  hub: string;
  entries: number;
}

/**
 * A tab's timeline as one self-contained file: JSON lines, the header then one entry a line, pictures inline as base64
 * JPEG (`tabwire timeline view FILE` and the dashboard read it without a hub). Answers the text and its entry count.
 */
export function timelineFile(timeline: TabTimeline, hub: string, now = Date.now()): { content: string; entries: number } {
  const entries: TimelineEntry[] = timeline.ring.after(0, Number.MAX_SAFE_INTEGER, { now });
  const header: TimelineHeader = {
    tabwireTimeline: TIMELINE_FILE_VERSION,
    target: timeline.target,
    url: timeline.url,
    title: timeline.title,
    exportedAt: now,
    hub,
    entries: entries.length,
  };
  const lines = [JSON.stringify(header), ...entries.map((entry) => JSON.stringify(entry))];
  return { content: `${lines.join("\n")}\n`, entries: entries.length };
}
