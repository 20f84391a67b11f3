import type { HubTool } from "./tools.js";

/** What a snapshot answers, as the MCP front reads it for an answer that adds the page. */
export interface PageSnapshot {
  snapshotId: string;
  url: string;
  title: string;
  text: string;
  nextCursor?: string;
}

/**
 * The tab whose page a tool's answer adds as a snapshot, or null: a tool that loads a page (tabs_open, navigate, back,
 * forward, reload), and an action that took the tab to a new document (its changes then say only the URL and title, and
 * the agent's next call would be a snapshot). An action that stayed in its document answers its diff instead.
 */
export function pageToAdd(tool: HubTool, args: Record<string, unknown>, result: unknown): string | null {
  const answer = (result ?? {}) as { target?: unknown; navigated?: unknown; changes?: { diff?: unknown } };
  const target = typeof answer.target === "string" ? answer.target : args.target;
  if (typeof target !== "string") return null;
  if (tool.loadsPage) return target;
  return answer.navigated !== undefined && typeof answer.changes?.diff !== "string" ? target : null;
}
