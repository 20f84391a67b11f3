// A tab's timeline as the dashboard reads it: the entries of timeline.get, the file timeline.export writes (read
// with no hub), and which picture shows the page as it was at a step.

/** A picture of the viewport: a base64 JPEG and its size. */
export interface TimelinePicture {
  data: string;
  width: number;
  height: number;
}

/** The kinds of entries, in the order the filters list them. */
export const TIMELINE_KINDS = ["call", "navigation", "console", "exception", "network", "dialog", "download", "agent", "tab"] as const;

/** A kind of entry. */
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** One entry of a timeline (timeline.get's entries, one line of an exported file). */
export interface TimelineEntry {
  seq: number;
  at: number;
  kind: TimelineKind;
  summary: string;
  method?: string;
  caller?: { kind: string; who: string };
  outcome?: string;
  durationMs?: number;
  traceId?: string;
  url?: string;
  status?: number;
  level?: string;
  before?: TimelinePicture;
  after?: TimelinePicture;
}

/** The first line of an exported file: of which tab, from which hub, when. */
export interface TimelineHeader {
  tabwireTimeline: 1;
  target: string;
  url: string;
  title: string;
  exportedAt: number;
  hub: string;
  entries: number;
}

/** A page of timeline.get. */
export interface TimelinePage {
  target: string;
  entries: TimelineEntry[];
  next: number;
  total: number;
  closed?: boolean;
}

/** A file that is not a timeline exported by tabwire (or is damaged): the message says which line and why. */
export class TimelineFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TimelineFileError";
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_TEXT_CHARS = 100_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isKind(value: unknown): value is TimelineKind {
  return typeof value === "string" && (TIMELINE_KINDS as readonly string[]).includes(value);
}

/** A picture as the file has it, or undefined when it is not one (its data must be base64: it becomes a data: URL). */
function pictureOf(value: unknown): TimelinePicture | undefined {
  if (!isRecord(value)) return undefined;
  const { data, width, height } = value;
  if (typeof data !== "string" || !BASE64.test(data) || typeof width !== "number" || typeof height !== "number") return undefined;
  return { data, width, height };
}

function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value.slice(0, MAX_TEXT_CHARS) : undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** An entry of a file's line, keeping only the fields it knows with the types it expects; null when it is no entry. */
function entryOf(value: unknown): TimelineEntry | null {
  if (!isRecord(value)) return null;
  const seq = numberOf(value.seq);
  const at = numberOf(value.at);
  const summary = textOf(value.summary);
  if (seq === undefined || at === undefined || summary === undefined || !isKind(value.kind)) return null;
  const caller = isRecord(value.caller) ? { kind: textOf(value.caller.kind) ?? "", who: textOf(value.caller.who) ?? "" } : undefined;
  const entry: TimelineEntry = {
    seq,
    at,
    kind: value.kind,
    summary,
    method: textOf(value.method),
    caller,
    outcome: textOf(value.outcome),
    durationMs: numberOf(value.durationMs),
    traceId: textOf(value.traceId),
    url: textOf(value.url),
    status: numberOf(value.status),
    level: textOf(value.level),
    before: pictureOf(value.before),
    after: pictureOf(value.after),
  };
  for (const key of Object.keys(entry) as (keyof TimelineEntry)[]) if (entry[key] === undefined) delete entry[key];
  return entry;
}

function headerOf(value: unknown): TimelineHeader | null {
  if (!isRecord(value) || value.tabwireTimeline !== 1 || typeof value.target !== "string") return null;
  return {
    tabwireTimeline: 1,
    target: value.target,
    url: textOf(value.url) ?? "",
    title: textOf(value.title) ?? "",
    exportedAt: numberOf(value.exportedAt) ?? 0,
    hub: textOf(value.hub) ?? "",
    entries: numberOf(value.entries) ?? 0,
  };
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Reads an exported timeline (JSON lines: the header `{"tabwireTimeline": 1, ...}`, then one entry a line); throws a
 * TimelineFileError that says what is wrong with a file that is not one.
 */
export function parseTimelineFile(text: string): { header: TimelineHeader; entries: TimelineEntry[] } {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const header = headerOf(parseLine(lines[0] ?? ""));
  if (!header) {
    throw new TimelineFileError(
      'This file is not a timeline exported by tabwire: its first line is not {"tabwireTimeline": 1, ...}. Export one with timeline.export or `tabwire timeline export`.',
    );
  }
  const entries: TimelineEntry[] = [];
  for (let index = 1; index < lines.length; index++) {
    const entry = entryOf(parseLine(lines[index] ?? ""));
    if (!entry) throw new TimelineFileError(`This timeline file is damaged: line ${index + 1} is not a timeline entry.`);
    entries.push(entry);
  }
  return { header, entries: entries.sort((a, b) => a.seq - b.seq) };
}

/** A picture as the `src` of an img. */
export function pictureSrc(picture: TimelinePicture): string {
  return `data:image/jpeg;base64,${picture.data}`;
}

/**
 * The page as it was at a step: the newest `after` picture of the steps up to it (the step itself included), else
 * the step's own `before`; undefined when none has a picture.
 */
export function pageAt(steps: readonly TimelineEntry[], index: number): TimelinePicture | undefined {
  for (let at = Math.min(index, steps.length - 1); at >= 0; at--) {
    const after = steps[at]?.after;
    if (after) return after;
  }
  return steps[index]?.before;
}
