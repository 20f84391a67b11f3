import type { CliIo } from "./cli-support.js";

/**
 * `snapshot --pretty`: the tree's lines as they are on stdout, so they can be read, piped and diffed; on stderr one
 * line of what a person needs next (the snapshot's id for --diff, the tab the CLI picked, the next page's cursor).
 */
export function printSnapshotLines(shown: Record<string, unknown>, io: CliIo): void {
  const text = typeof shown.text === "string" ? shown.text : "";
  io.stdout(text.endsWith("\n") || text === "" ? text : `${text}\n`);
  const notes = [`snapshot ${String(shown.snapshotId)}`];
  if (typeof shown.target === "string") notes.push(`of ${shown.target}`);
  if (typeof shown.nextCursor === "string") notes.push(`(more: tabwire snapshot --cursor ${shown.nextCursor})`);
  if (shown.truncated === true) notes.push("(the page has more nodes than a snapshot holds)");
  io.stderr(`# ${notes.join(" ")}\n`);
}
