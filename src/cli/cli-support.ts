import { ConnectionClosedError, HubRefusedError, TabwireClient, TabwireError, type Tab } from "../client/index.js";
import { loadCliSettings } from "../config.js";
import { ErrorCode, type ErrorName } from "../errors.js";
import { isTarget, targetShape } from "../target-id.js";
import { CliError } from "./eval-options.js";

/** Where a command writes: JSON results on stdout, JSON errors on stderr. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: () => Promise<string>;
}

/** The hub address and token a command was given (flags win over TABWIRE_URL / TABWIRE_TOKEN). */
export interface HubFlags {
  hub?: string;
  token?: string;
}

// A tab still loading a page is "not now", as a timeout is: a script may wait and try again.
const EXIT_BY_ERROR: Partial<Record<ErrorName, number>> = { TARGET_NOT_FOUND: 3, TIMEOUT: 4, PAGE_LOADING: 4 };
const NAMES = new Map<number, ErrorName>(Object.entries(ErrorCode).map(([name, code]) => [code, name as ErrorName]));
const CONNECT_TIMEOUT_MS = 1_000;

/**
 * Connects to the hub; an unreachable hub is exit code 2 with a message naming `tabwire serve`, a hub that refuses
 * the connection (a wrong or missing token, an address over the failed-sign-in limit) exit code 1 saying what to do.
 */
export async function connectHub(options: HubFlags): Promise<TabwireClient> {
  const settings = loadCliSettings();
  const url = options.hub ?? settings.hubUrl;
  const token = options.token ?? settings.token;
  try {
    return await TabwireClient.connect({ url, token, reconnect: false, connectTimeoutMs: CONNECT_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof HubRefusedError) throw refusal(error, { url, hasToken: token !== undefined });
    const why = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `the hub is not reachable (${why}); start it with \`tabwire serve\` or point --hub / TABWIRE_URL at it`,
      2,
      "HUB_UNREACHABLE",
    );
  }
}

/** A hub that answered but refused: what the user does next, by HTTP status (the hub's own reason kept where it helps). */
function refusal(error: HubRefusedError, asked: { url: string; hasToken: boolean }): CliError {
  if (error.status === 401) {
    const what = asked.hasToken ? "refused the token: it is not one of the hub's tokens" : "needs a token and none was given";
    const next = "pass it with --token T or TABWIRE_TOKEN (in the environment or .env)";
    return new CliError(`the hub at ${asked.url} ${what} (HTTP 401); ${next}`, 1, "UNAUTHORIZED");
  }
  if (error.status === 429) {
    // The hub's reason says when to retry; a refusal without one (a proxy's) says it from Retry-After.
    const seconds = error.retryAfterMs === undefined ? "a minute" : `${Math.ceil(error.retryAfterMs / 1000)} s`;
    const when = /retry in/.test(error.message) ? "" : `; retry in ${seconds}`;
    return new CliError(`${error.message}${when} (the token goes in --token T or TABWIRE_TOKEN)`, 1, "RATE_LIMITED");
  }
  return new CliError(error.message, 1, error.status === 403 ? "FORBIDDEN" : "REFUSED");
}

/**
 * Without --target: the tab in front, as webctl and agentchrome act on the active tab: the only tab, else the one
 * that last came to the front through the hub (tabs.open without --background, tabs.activate); an error listing
 * them when none did.
 */
export async function activeTab(client: TabwireClient): Promise<string> {
  const { tabs } = await client.call("tabs.list", {});
  if (tabs.length === 1 && tabs[0]) return tabs[0].target;
  let front: Tab | undefined;
  for (const tab of tabs) if (tab.activatedAt !== null && (front === undefined || tab.activatedAt > (front.activatedAt ?? 0))) front = tab;
  if (front) return front.target;
  const list = tabs.map((tab) => `${tab.target} ${tab.url}`).join("; ");
  const why = tabs.length === 0 ? "no tab is open" : `${tabs.length} tabs are open and none was brought to the front through the hub`;
  throw new CliError(`${why}; pick one with --target (${list || "open one with tabwire tabs open URL"})`, 3, "TARGET_NOT_FOUND");
}

/** A target as the user gave it (--target, or TARGET of tabs close), or a usage error saying what one looks like. */
export function checkedTarget(text: string, what = "--target"): string {
  if (isTarget(text)) return text;
  throw new CliError(
    `${what} ${JSON.stringify(text.slice(0, 300))} is not a tab: give ${targetShape("`tabwire tabs`")}`,
    1,
    "INVALID_PARAMS",
  );
}

/** A failure as the JSON error body and the exit code scripts can use. */
export function describeFailure(error: unknown): { body: Record<string, unknown>; exitCode: number } {
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
