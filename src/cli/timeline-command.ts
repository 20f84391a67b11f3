import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import type { CliIo } from "./cli-support.js";
import { CliError } from "./eval-options.js";

const USAGE = "usage: tabwire timeline export --target clientId:tabId [--out FILE]  |  tabwire timeline view FILE";
// The widths of view's columns; a longer value runs over, the row stays one line.
const KIND_WIDTH = 10;
const WHAT_WIDTH = 64;

/**
 * `tabwire timeline export --target T [--out FILE]`: a tab's timeline (timeline.export) written to FILE (printing
 * {"ok": true, "path", "entries", "bytes"}) or, without --out, to stdout as it is. `tabwire timeline view FILE`: an
 * exported timeline as readable rows (time, kind, what, outcome, duration), with no hub. Exit 2: bad usage or a file
 * that cannot be read; the export's hub errors exit as every command's do.
 */
export async function runTimeline(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === "view") return view(rest, io);
  if (verb === "export") return exportTimeline(rest, io);
  io.stderr(`${USAGE}\n`);
  return 2;
}

async function view(args: string[], io: CliIo): Promise<number> {
  const [file, ...extra] = args;
  if (file === undefined || extra.length > 0 || file.startsWith("--")) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    io.stderr(`tabwire timeline: cannot read ${file}: ${(error as Error).message}\n`);
    return 2;
  }
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const parsed = lines.map(parseLine);
  const header = parsed[0];
  if (header?.tabwireTimeline !== 1) {
    io.stderr(`tabwire timeline: ${file} is not an exported timeline (its first line has no "tabwireTimeline": 1)\n`);
    return 2;
  }
  io.stdout(`${headerText(header)}\n`);
  io.stdout(`${"seq".padStart(5)}  ${"time (UTC)".padEnd(12)}  ${"kind".padEnd(KIND_WIDTH)}  ${"what".padEnd(WHAT_WIDTH)}  outcome  ms\n`);
  for (const entry of parsed.slice(1)) if (entry !== null) io.stdout(`${rowText(entry)}\n`);
  return 0;
}

async function exportTimeline(args: string[], io: CliIo): Promise<number> {
  const { connectHub, checkedTarget, describeFailure } = await import("./cli-support.js");
  try {
    const { values } = parseArgs({
      args,
      options: { target: { type: "string" }, out: { type: "string", short: "o" }, hub: { type: "string" }, token: { type: "string" } },
    });
    if (typeof values.target !== "string") throw new CliError(`missing --target; ${USAGE}`, 1);
    const target = checkedTarget(values.target);
    const client = await connectHub({ hub: values.hub, token: values.token });
    try {
      const exported = await client.call("timeline.export", { target });
      if (typeof values.out !== "string") {
        io.stdout(exported.content);
        return 0;
      }
      const file = path.resolve(values.out);
      await writeFile(file, exported.content, { mode: 0o600 });
      io.stdout(`${JSON.stringify({ ok: true, path: file, entries: exported.entries, bytes: exported.bytes })}\n`);
      return 0;
    } finally {
      await client.close();
    }
  } catch (error) {
    const { body, exitCode } = describeFailure(error);
    io.stderr(`${JSON.stringify(body)}\n`);
    return exitCode;
  }
}

type Line = Record<string, unknown> | null;

function parseLine(line: string): Line {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function headerText(header: Record<string, unknown>): string {
  const exported = typeof header.exportedAt === "number" ? new Date(header.exportedAt).toISOString() : "?";
  return `timeline of ${String(header.target)} (${String(header.url)}), ${String(header.entries)} entries, exported ${exported}`;
}

/** One entry as a row: seq, time of day, kind, what (with its caller and pictures), outcome, duration. */
function rowText(entry: Record<string, unknown>): string {
  const seq = String(entry.seq ?? "?").padStart(5);
  const time = typeof entry.at === "number" ? new Date(entry.at).toISOString().slice(11, 23) : "?".padEnd(12);
  const kind = String(entry.kind ?? "?").padEnd(KIND_WIDTH);
  const caller = entry.caller as { kind?: unknown; who?: unknown } | undefined;
  const pictures = ["before", "after"].filter((name) => typeof entry[name] === "object" && entry[name] !== null);
  const what = [
    String(entry.summary ?? ""),
    caller ? `[${String(caller.kind)} ${String(caller.who)}]` : "",
    pictures.length > 0 ? `[pictures: ${pictures.join(", ")}]` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const outcome = typeof entry.outcome === "string" ? entry.outcome : typeof entry.status === "number" ? String(entry.status) : "";
  const ms = typeof entry.durationMs === "number" ? entry.durationMs.toFixed(1) : "";
  return `${seq}  ${time}  ${kind}  ${what.padEnd(WHAT_WIDTH)}  ${outcome.padEnd(7)}  ${ms}`.trimEnd();
}
