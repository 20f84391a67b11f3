// How numbers, times and values read on the page.

import type { AgentActivity } from "./types.js";

/** A clock time, `14:03:07`, of ms since the epoch. */
export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

/** A clock time to the millisecond, `14:03:07.042`, of ms since the epoch (when a console message was logged). */
export function preciseTime(ms: number): string {
  return `${clockTime(ms)}.${String(Math.floor(ms) % 1000).padStart(3, "0")}`;
}

/** How long ago (or how long), coarsely: `42 s`, `5 min`, `3 h`, `2 d`. */
export function span(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** A duration in milliseconds: `84 ms`, `1.2 s`; an empty string when unknown. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A size in bytes: `312 B`, `4.1 KiB`, `120 MiB`. */
export function bytes(count: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A rate with one decimal: `3.2`. */
export function rate(perSecond: number): string {
  return (Math.round(perSecond * 10) / 10).toFixed(1);
}

/** Any JSON value as one line of text: strings as they are, the rest as JSON. */
export function describe(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** An error's message, whatever was thrown. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return describe(error) || "unknown error";
}

/** Whether an error is only that the connection closed (a clean-up call that could not be sent needs no warning). */
export function isDisconnect(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "DISCONNECTED";
}

/** One line of what an agent did: `14:03:07 task: find the price`, `14:03:09 done (ok)`, `14:03:08 status: reading · 40%`. */
export function activityLine(activity: AgentActivity): string {
  const outcome = activity.kind === "done" && activity.ok !== undefined ? (activity.ok ? " (ok)" : " (failed)") : "";
  const said =
    activity.kind === "task"
      ? describe(activity.input)
      : [activity.message, activity.status, activity.progress].map(describe).filter(Boolean).join(" · ");
  return `${clockTime(activity.at || Date.now())} ${activity.kind}${outcome}${said ? `: ${said}` : ""}`;
}
