import { ConnectionClosedError, TabwireClient, TabwireError } from "../client/index.js";
import { loadCliSettings } from "../config.js";
import { ErrorCode, type ErrorName } from "../errors.js";
import { CliError, parseEvalArgs, type EvalOptions } from "./eval-options.js";

/** Where the command writes: JSON results on stdout, JSON errors on stderr. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: () => Promise<string>;
}

const EXIT_BY_ERROR: Partial<Record<ErrorName, number>> = { TARGET_NOT_FOUND: 3, TIMEOUT: 4 };
const NAMES = new Map<number, ErrorName>(Object.entries(ErrorCode).map(([name, code]) => [code, name as ErrorName]));
const CONNECT_TIMEOUT_MS = 1_000;

/** `tabwire eval`: runs code in a tab (or on one element) and prints `{"ok": true, ...result}`; returns the exit code. */
export async function runEval(args: string[], io: CliIo): Promise<number> {
  let options: EvalOptions | undefined;
  try {
    options = await parseEvalArgs(args, io.stdin);
    const client = await connectHub(options);
    try {
      const result = await evaluateWith(client, options, options.target ?? (await onlyTab(client)));
      io.stdout(`${JSON.stringify({ ok: true, ...result }, null, options.pretty ? 2 : undefined)}\n`);
      return 0;
    } finally {
      await client.close();
    }
  } catch (error) {
    const { body, exitCode } = describeFailure(error);
    io.stderr(`${JSON.stringify(body, null, options?.pretty ? 2 : undefined)}\n`);
    return exitCode;
  }
}

async function connectHub(options: EvalOptions): Promise<TabwireClient> {
  const settings = loadCliSettings();
  const url = options.hub ?? settings.hubUrl;
  try {
    return await TabwireClient.connect({ url, token: options.token ?? settings.token, reconnect: false, connectTimeoutMs: CONNECT_TIMEOUT_MS });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new CliError(`the hub is not reachable (${why}); start it with \`tabwire serve\` or point --hub / TABWIRE_URL at it`, 2, "HUB_UNREACHABLE");
  }
}

function evaluateWith(client: TabwireClient, options: EvalOptions, target: string): Promise<object> {
  const common = { target, awaitPromise: options.awaitPromise, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.maxSize ? { maxSize: options.maxSize } : {}) };
  if (options.ref !== undefined || options.selector !== undefined) {
    const element = options.ref !== undefined ? { ref: options.ref } : { selector: options.selector };
    return client.call("callOn", { ...common, ...element, functionDeclaration: options.code });
  }
  return client.evaluate({ ...common, expression: options.code });
}

/** Without --target: the only page tab, else an error listing them. */
async function onlyTab(client: TabwireClient): Promise<string> {
  const { tabs } = await client.call("tabs.list", {});
  if (tabs.length === 1 && tabs[0]) return tabs[0].target;
  const list = tabs.map((tab) => `${tab.target} ${tab.url}`).join("; ");
  throw new CliError(`${tabs.length} tabs are open; pick one with --target (${list || "open one with tabwire tabs open URL"})`, 3, "TARGET_NOT_FOUND");
}

function describeFailure(error: unknown): { body: Record<string, unknown>; exitCode: number } {
  if (error instanceof CliError) return { body: { ok: false, error: error.message, code: error.code }, exitCode: error.exitCode };
  if (error instanceof TabwireError) {
    const name = NAMES.get(error.code) ?? String(error.code);
    const stack = (error.data as { stack?: unknown } | undefined)?.stack;
    const body = { ok: false, error: error.message, code: name, ...(typeof stack === "string" ? { stack } : {}) };
    return { body, exitCode: EXIT_BY_ERROR[name as ErrorName] ?? 1 };
  }
  const message = error instanceof ConnectionClosedError ? `the hub closed the connection: ${error.message}` : (error as Error).message;
  return { body: { ok: false, error: message, code: "ERROR" }, exitCode: 1 };
}
