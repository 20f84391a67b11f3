import { chmodSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import winston from "winston";
import { CHAIN_START, chainHeadOf, chainedLine, lineHash } from "./audit-chain.js";
import type { Config } from "./config.js";
import { LogFile } from "./log-file.js";

const SECRET_KEY = /token|authorization|secret|password|api[-_]?key|cookie/i;
const REDACTED = "[redacted]";

let secrets: readonly string[] = [];

// The user:password@ of a URL (CDP_URL, REDIS_URL, or one an error message repeats), whatever the password is.
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;
// A name=value pair of a URL's query or fragment.
const URL_PARAM = /([?#&;])([^=&#;]*)=([^&#;]*)/g;
// Shorter configured secrets are only redacted inside URLs: replacing every "p" of a line would say nothing.
const MIN_REDACTED_LENGTH = 6;

/** Replaces configured secrets (and the credentials of any URL) in a string; cheap enough for every log line. */
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  if (out.includes("@") && out.includes("://")) out = out.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
  return out;
}

/**
 * A page's URL as the hub shows it where others may read it (a tab's timeline): redacted as log lines are, and the
 * values of secret-looking query parameters (token, password, api_key...) replaced.
 */
export function redactUrl(url: string): string {
  const out = redact(url);
  const start = out.search(/[?#]/);
  if (start < 0 || !SECRET_KEY.test(out.slice(start))) return out;
  // The fragment too: OAuth's implicit flow puts access_token there.
  const rest = out
    .slice(start)
    .replace(URL_PARAM, (pair, lead: string, name: string) => (SECRET_KEY.test(name) ? `${lead}${name}=${REDACTED}` : pair));
  return out.slice(0, start) + rest;
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redact(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? REDACTED : scrub(item, depth + 1);
  return out;
}

// Winston keeps level and message on symbol keys too, so scrub in place rather than copy.
const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    info[key] = SECRET_KEY.test(key) ? REDACTED : scrub(info[key], 0);
  }
  return info;
});

const readable = winston.format.printf((info) => {
  const { level, message, timestamp, ...rest } = info;
  const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : "";
  return `${String(timestamp)} ${level} ${String(message)}${extra}`;
});

function consoleTransport(level: string): winston.transport {
  return new winston.transports.Console({
    level,
    stderrLevels: ["error", "warn", "info", "http", "verbose", "debug", "silly"],
    format: winston.format.combine(winston.format.timestamp(), readable),
  });
}

/** The hub's logger: JSON lines in logs/combined.log and logs/error.log, readable lines on stderr. */
export const log = winston.createLogger({
  level: "info",
  format: winston.format.combine(redactFormat(), winston.format.timestamp(), winston.format.json()),
  transports: [consoleTransport("info")],
});

// One line per request is on every call's path: queued as an entry and written with the other lines of its turn
// after the call is answered (winston's file stream pipeline cost about a sixth of the hub's CPU under load), and
// made from its known fields by hand (a generic JSON.stringify of a copy and a Date per line were the hub's largest
// JavaScript item under load after that).
interface ApiLine {
  entry: ApiLogEntry;
  at: number;
}
// api.log lines are written in batches: at most this long after their call, or once this many wait.
const API_LOG_FLUSH_MS = 200;
const API_LOG_MAX_PENDING = 2_000;
let apiFile: LogFile<ApiLine> | null = null;
let isoAt = -1;
let iso = "";

function apiLineText({ entry, at }: ApiLine): string {
  if (at !== isoAt) {
    isoAt = at;
    iso = new Date(at).toISOString();
  }
  // The target is the only field a caller chooses freely; it is redacted like any log line.
  const target = entry.target === undefined ? "" : `,"target":${JSON.stringify(redact(entry.target))}`;
  const { method, durationMs, outcome, peer } = entry;
  return `{"level":"info","message":"request","method":${JSON.stringify(method)}${target},"durationMs":${durationMs},"outcome":${JSON.stringify(outcome)},"peer":${JSON.stringify(peer)},"timestamp":"${iso}"}`;
}

/** One line per request in logs/api.log; never params or secrets. */
export interface ApiLogEntry {
  method: string;
  target?: string;
  durationMs: number;
  outcome: string;
  peer: string;
}

/** Writes one request line to logs/api.log. */
export function logApi(entry: ApiLogEntry): void {
  apiFile?.write({ entry, at: Date.now() });
}

/** A call written to logs/audit.log (router): the fields of its line, all strings. */
export interface AuditedCall {
  method: string;
  outcome: string;
  who: string;
  peer: string;
  target?: string;
  clientId?: string;
  codeSha256?: string;
  /** The trace id of the caller's W3C traceparent (the call's param, else its connection's header), when it gave one. */
  traceId?: string;
}

/** One line of logs/audit.log before it is chained: an event with its fields, or a call, and when. */
type AuditEntry = { event: string; fields: Record<string, unknown>; at: number } | { call: AuditedCall; at: number };
let auditIsoAt = -1;
let auditIso = "";
// Audit lines are written within this long of what they record, in the order it happened.
const AUDIT_FLUSH_MS = 100;
const AUDIT_MAX_PENDING = 1_000;
let auditFile: LogFile<AuditEntry> | null = null;
let auditHead = CHAIN_START;

// Each line carries the hash of the line before it (audit-chain.ts), so a line edited or removed later is found by
// `tabwire audit verify`. Fields are redacted like every log line.
function auditLineText(entry: AuditEntry): string {
  if (entry.at !== auditIsoAt) {
    auditIsoAt = entry.at;
    auditIso = new Date(entry.at).toISOString();
  }
  const line = chainedLine(auditHead, "call" in entry ? callJson(entry.call) : eventJson(entry.event, entry.fields));
  auditHead = lineHash(line);
  return line;
}

function eventJson(event: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ timestamp: auditIso, level: "info", message: event, ...(scrub(fields, 0) as object) });
}

// A call's line is made by hand from its known fields, as api.log's are: one is written for most calls a hub runs.
function callJson(call: AuditedCall): string {
  const { method, outcome, who, peer, target, clientId, codeSha256, traceId } = call;
  const text = (name: string, value: string | undefined): string =>
    value === undefined ? "" : `,"${name}":${JSON.stringify(redact(value))}`;
  return `{"timestamp":"${auditIso}","level":"info","message":"call","method":${JSON.stringify(method)},"outcome":${JSON.stringify(outcome)},"who":${JSON.stringify(who)},"peer":${JSON.stringify(peer)}${text("target", target)}${text("clientId", clientId)}${codeSha256 === undefined ? "" : `,"codeSha256":"${codeSha256}"`}${traceId === undefined ? "" : `,"traceId":"${traceId}"`}}`;
}

/** Writes one call to logs/audit.log (the router, for every call of a method that may change something). */
export function auditCall(call: AuditedCall): void {
  auditFile?.write({ call, at: Date.now() });
}

/**
 * Writes one line to logs/audit.log (and the hub's log at debug level): who signed in to the dashboard, who paused or
 * resumed an agent, and every call that changes something (the router's audit of calls).
 */
export function audit(event: string, fields: Record<string, unknown>): void {
  auditFile?.write({ event, fields, at: Date.now() });
  if (log.isLevelEnabled("debug")) log.debug(event, fields);
}

/** Points the loggers at the configured directory and level, and learns the secrets to redact. */
export function configureLogging(config: Config, extraSecrets: readonly string[] = []): void {
  const keys = [...config.tokens, ...config.agentKeys].map((grant) => grant.token);
  const proxies = config.tokens.map((grant) => grant.policy?.upstreamProxy ?? null);
  const inUrls = [config.cdpUrl, config.redisUrl, ...proxies].flatMap(credentialsIn);
  secrets = [...keys, config.clusterSecret ?? "", ...inUrls.filter((s) => s.length >= MIN_REDACTED_LENGTH), ...extraSecrets].filter(
    (s) => s.length > 0,
  );
  // Log lines name peers, clients and URLs: the files are the operator's to read, nobody else's.
  mkdirSync(config.logDir, { recursive: true, mode: 0o700 });
  const file = (name: string, level?: string): winston.transport => {
    const filename = path.join(config.logDir, name);
    if (existsSync(filename)) chmodSync(filename, 0o600);
    return new winston.transports.File({
      filename,
      maxsize: config.logMaxBytes,
      maxFiles: config.logMaxFiles,
      tailable: true,
      options: { flags: "a", mode: 0o600 },
      ...(level ? { level } : {}),
    });
  };
  log.clear();
  log.level = config.logLevel;
  log.add(consoleTransport(config.logLevel));
  log.add(file("combined.log"));
  log.add(file("error.log", "error"));
  auditFile?.close();
  const auditName = path.join(config.logDir, "audit.log");
  if (existsSync(auditName)) chmodSync(auditName, 0o600);
  // The chain goes on from the last line a hub wrote (across restarts and rotated files).
  auditHead = chainHeadOf(auditName);
  auditFile = new LogFile(auditName, {
    format: auditLineText,
    maxBytes: config.logMaxBytes,
    maxFiles: config.logMaxFiles,
    onError: (error) => log.error("cannot write audit.log; audit lines are lost until it can", { error: error.message }),
    flushMs: AUDIT_FLUSH_MS,
    maxPending: AUDIT_MAX_PENDING,
  });
  apiFile?.close();
  apiFile = new LogFile(path.join(config.logDir, "api.log"), {
    format: apiLineText,
    maxBytes: config.logMaxBytes,
    maxFiles: config.logMaxFiles,
    onError: (error) => log.error("cannot write api.log; request lines are lost until it can", { error: error.message }),
    flushMs: API_LOG_FLUSH_MS,
    maxPending: API_LOG_MAX_PENDING,
  });
}

/** The password and secret-looking query values of a URL setting (CDP_URL, REDIS_URL), to redact wherever they appear. */
function credentialsIn(setting: string | null): string[] {
  if (setting === null) return [];
  let url: URL;
  try {
    url = new URL(setting);
  } catch {
    return [];
  }
  const found = [decodeURIComponent(url.password), url.password];
  for (const [key, value] of url.searchParams) if (SECRET_KEY.test(key)) found.push(value);
  return found;
}

/** Closes the log files so a stopping process loses no lines. */
export function closeLogging(): void {
  apiFile?.close();
  apiFile = null;
  auditFile?.close();
  auditFile = null;
  log.clear();
  log.add(consoleTransport(log.level));
}
