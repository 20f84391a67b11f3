import { boolean, integer, oneOf, type Env } from "./config-values.js";

/** How each tab's timeline is kept (timeline.get, timeline.export): its bounds, and whether actions get pictures. */
export interface TimelineSettings {
  /** TIMELINE_ENABLED: false keeps no timeline at all (timeline.get answers an empty one). */
  enabled: boolean;
  maxEntries: number;
  maxBytes: number;
  maxAgeMs: number;
  /** How long a closed tab's timeline is still read, and how many closed tabs of one client are kept. */
  closedTtlMs: number;
  closedTabs: number;
  /** TIMELINE_PICTURES=on: a small JPEG before and after each action (about 0.1 s more an action; bench/README.md). */
  pictures: boolean;
}

/** Reads the TIMELINE_* settings (config.ts gives the environment). */
export function timelineSettings(env: Env): TimelineSettings {
  return Object.freeze({
    enabled: boolean(env, "TIMELINE_ENABLED", true),
    maxEntries: integer(env, "TIMELINE_MAX_ENTRIES", { fallback: 5_000, min: 10, max: 1_000_000 }),
    maxBytes: integer(env, "TIMELINE_MAX_BYTES", { fallback: 2 * 1024 * 1024, min: 64 * 1024, max: 256 * 1024 * 1024 }),
    maxAgeMs: integer(env, "TIMELINE_MAX_AGE_MS", { fallback: 3_600_000, min: 1_000 }),
    closedTtlMs: integer(env, "TIMELINE_CLOSED_TTL_MS", { fallback: 600_000, min: 0 }),
    closedTabs: integer(env, "TIMELINE_CLOSED_TABS", { fallback: 20, min: 0, max: 1_000 }),
    pictures: oneOf(env, "TIMELINE_PICTURES", { choices: ["off", "on"] as const, fallback: "off" }) === "on",
  });
}
