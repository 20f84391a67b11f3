import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

/** A failure of the command line, with the exit code scripts can use (1 general, 2 hub unreachable, 3 target, 4 timeout). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code = "USAGE",
  ) {
    super(message);
  }
}

/** What `tabwire eval` was asked to do. */
export interface EvalOptions {
  code: string;
  target?: string;
  timeoutMs?: number;
  awaitPromise: boolean;
  maxSize?: number;
  ref?: string;
  selector?: string;
  hub?: string;
  token?: string;
  pretty: boolean;
}

/** Parses `30s`, `500ms`, `2m` or a number of milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match?.[1]) throw new CliError(`--timeout ${JSON.stringify(text)} is not a duration; use 30s, 500ms or a number of milliseconds`, 1);
  const value = Number(match[1]) * ({ ms: 1, s: 1000, m: 60_000 }[match[2] ?? "ms"] ?? 1);
  if (value < 1) throw new CliError("--timeout must be at least 1 ms", 1);
  return Math.round(value);
}

/** Parses the arguments of `tabwire eval`, reading the code from exactly one source. */
export async function parseEvalArgs(args: string[], stdin: () => Promise<string>): Promise<EvalOptions> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      code: { type: "string" },
      file: { type: "string" },
      stdin: { type: "boolean" },
      target: { type: "string" },
      timeout: { type: "string" },
      "no-await": { type: "boolean" },
      "max-size": { type: "string" },
      ref: { type: "string" },
      uid: { type: "string" },
      selector: { type: "string" },
      hub: { type: "string" },
      token: { type: "string" },
      pretty: { type: "boolean" },
    },
  });
  const dash = positionals.length === 1 && positionals[0] === "-";
  const sources = [
    positionals.length > 0 && !dash,
    values.code !== undefined,
    values.file !== undefined,
    values.stdin === true || dash,
  ].filter(Boolean);
  if (sources.length > 1) throw new CliError("give the code one way only: as arguments, --code, --file, or --stdin (or -)", 1);
  if (sources.length === 0)
    throw new CliError("no JavaScript code: give it as arguments, --code, --file, or pipe it with --stdin (or -)", 1);
  // --uid is agentchrome's name for a snapshot ref.
  const ref = values.ref ?? values.uid;
  if (values.ref !== undefined && values.uid !== undefined) throw new CliError("give --ref or --uid, not both (they are the same)", 1);
  if (ref !== undefined && values.selector !== undefined) throw new CliError("give --ref or --selector, not both", 1);
  const maxSize = values["max-size"] === undefined ? undefined : Number(values["max-size"]);
  if (maxSize !== undefined && (!Number.isInteger(maxSize) || maxSize < 1))
    throw new CliError("--max-size must be a whole number of bytes", 1);
  return {
    code: await readCode({ values, positionals, dash }, stdin),
    target: values.target,
    timeoutMs: values.timeout === undefined ? undefined : parseDuration(values.timeout),
    awaitPromise: values["no-await"] !== true,
    maxSize,
    ref,
    selector: values.selector,
    hub: values.hub,
    token: values.token,
    pretty: values.pretty === true,
  };
}

// The code from --code, standard input (--stdin or `-`), --file, or the positionals, in that order.
async function readCode(
  args: { values: { code?: string; file?: string; stdin?: boolean }; positionals: string[]; dash: boolean },
  stdin: () => Promise<string>,
): Promise<string> {
  const { values, positionals, dash } = args;
  if (values.code !== undefined) return values.code;
  if (values.stdin === true || dash) return stdin();
  if (values.file === undefined) return positionals.join(" ");
  try {
    return await readFile(values.file, "utf8");
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : (error as Error).message;
    throw new CliError(`script file ${values.file}: ${why}`, 1, "FILE_NOT_FOUND");
  }
}
