import dotenv from "dotenv";

/** A token that callers present, with the base client ids it is scoped to (null: everything). */
export interface TokenGrant {
  token: string;
  scope: ReadonlySet<string> | null;
}

/** The hub's whole configuration, parsed once from the environment. */
export interface Config {
  host: string;
  port: number;
  apiPort: number | null;
  tokens: readonly TokenGrant[];
  /** The secret agents present (URL ?token=, Authorization, or secretKey in register); null: loopback agents only. */
  authKey: string | null;
  agentLegacyAuth: boolean;
  allowedOrigins: ReadonlySet<string>;
  cdpUrl: string | null;
  chromePath: string | null;
  chromeArgs: readonly string[];
  defaultClientId: string;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  maxPayloadBytes: number;
  maxBatch: number;
  maxInflight: number;
  /** Requests a connection may start per second (token bucket, bursts of as many); 0 = no limit. */
  ratePerSec: number;
  maxSessions: number;
  heartbeatIntervalMs: number;
  sendHighWaterBytes: number;
  slowReaderTimeoutMs: number;
  dialogPolicy: "accept" | "dismiss";
  evaluateEnabled: boolean;
  allowUrlSchemes: ReadonlySet<string>;
  logLevel: string;
  logDir: string;
  logMaxBytes: number;
  logMaxFiles: number;
  /** Cluster (Redis): REDIS_URL joins this hub to a cluster of instances; null runs a single hub. */
  redisUrl: string | null;
  /** This instance's id in the cluster; null: one is made at start. */
  instanceId: string | null;
  /** How long the cluster registry keeps this instance's targets without a refresh (milliseconds). */
  clusterTtlMs: number;
}

/** Raised at start-up when a variable has a value the hub cannot use. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = "ConfigError";
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
const LOG_LEVELS = new Set(["error", "warn", "info", "http", "verbose", "debug", "silly"]);

/** Reads `.env` (when present) into the environment, then parses it; the one reader of process.env. */
export function loadConfig(): Config {
  dotenv.config({ quiet: true });
  return parseConfig(process.env);
}

/** Parses and validates a configuration from an environment-like record; throws ConfigError naming the variable. */
export function parseConfig(env: Env): Config {
  const defaultTimeoutMs = integer(env, "DEFAULT_TIMEOUT_MS", 30_000, 1);
  const maxTimeoutMs = integer(env, "MAX_TIMEOUT_MS", 600_000, 1);
  if (defaultTimeoutMs > maxTimeoutMs) {
    throw new ConfigError("DEFAULT_TIMEOUT_MS", `must not exceed MAX_TIMEOUT_MS (${maxTimeoutMs})`);
  }
  const apiPort = env.API_PORT ? integer(env, "API_PORT", 0, 0, 65_535) : null;
  return Object.freeze({
    host: text(env, "HOST", "127.0.0.1"),
    port: integer(env, "PORT", 8080, 0, 65_535),
    apiPort,
    tokens: Object.freeze(parseTokens(env)),
    authKey: env.AUTH_KEY ? checkedToken("AUTH_KEY", env.AUTH_KEY.trim()) : null,
    agentLegacyAuth: boolean(env, "AGENT_LEGACY_AUTH", false),
    allowedOrigins: list(env, "ALLOWED_ORIGINS"),
    cdpUrl: cdpUrl(env),
    chromePath: env.CHROME_PATH ? env.CHROME_PATH : null,
    chromeArgs: Object.freeze(env.CHROME_ARGS ? env.CHROME_ARGS.split(/\s+/).filter(Boolean) : []),
    defaultClientId: clientId(env, "DEFAULT_CLIENT_ID", "local"),
    defaultTimeoutMs,
    maxTimeoutMs,
    maxPayloadBytes: integer(env, "MAX_PAYLOAD", 32 * 1024 * 1024, 1024),
    maxBatch: integer(env, "MAX_BATCH", 100, 1),
    maxInflight: integer(env, "MAX_INFLIGHT", 256, 1),
    ratePerSec: integer(env, "RATE_LIMIT_PER_SEC", 0, 0),
    maxSessions: integer(env, "MAX_SESSIONS", 64, 1),
    heartbeatIntervalMs: integer(env, "HEARTBEAT_INTERVAL_MS", 30_000, 100),
    sendHighWaterBytes: integer(env, "SEND_HIGH_WATER_BYTES", 8 * 1024 * 1024, 1024),
    slowReaderTimeoutMs: integer(env, "SLOW_READER_TIMEOUT_MS", 30_000, 100),
    dialogPolicy: oneOf(env, "DIALOG_POLICY", ["dismiss", "accept"] as const, "dismiss"),
    evaluateEnabled: boolean(env, "EVALUATE_ENABLED", true),
    allowUrlSchemes: list(env, "ALLOW_URL_SCHEMES", (s) => s.toLowerCase().replace(/:$/, "")),
    logLevel: logLevel(env),
    logDir: text(env, "LOG_DIR", "logs"),
    logMaxBytes: integer(env, "LOG_MAX_BYTES", 10 * 1024 * 1024, 1024),
    logMaxFiles: integer(env, "LOG_MAX_FILES", 5, 1),
    redisUrl: redisUrl(env),
    instanceId: env.INSTANCE_ID ? clientId(env, "INSTANCE_ID", "") : null,
    clusterTtlMs: integer(env, "CLUSTER_TTL_MS", 10_000, 500, 3_600_000),
  });
}

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === "" ? fallback : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(name, `expected true or false, got "${env[name]}"`);
}

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const found = choices.find((choice) => choice === raw);
  if (found === undefined) throw new ConfigError(name, `expected one of ${choices.join(", ")}, got "${raw}"`);
  return found;
}

function list(env: Env, name: string, normalize: (item: string) => string = (s) => s): ReadonlySet<string> {
  const raw = env[name] ?? "";
  return new Set(raw.split(",").map((item) => normalize(item.trim())).filter(Boolean));
}

function clientId(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback);
  if (!ID_PATTERN.test(value)) throw new ConfigError(name, "use 1-128 characters of A-Z a-z 0-9 . _ -");
  return value;
}

function logLevel(env: Env): string {
  const value = text(env, "LOG_LEVEL", "info");
  if (!LOG_LEVELS.has(value)) throw new ConfigError("LOG_LEVEL", `expected one of ${[...LOG_LEVELS].join(", ")}`);
  return value;
}

function cdpUrl(env: Env): string | null {
  const raw = env.CDP_URL;
  if (raw === undefined || raw === "") return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError("CDP_URL", `"${raw}" is not a URL; use http://host:9222 or ws://host:9222/devtools/browser/<id>`);
  }
  if (!["http:", "https:", "ws:", "wss:"].includes(url.protocol)) {
    throw new ConfigError("CDP_URL", "must start with http://, https://, ws:// or wss://");
  }
  return raw;
}

function redisUrl(env: Env): string | null {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === "") return null;
  if (!/^rediss?:\/\/[^\s]+$/.test(raw)) throw new ConfigError("REDIS_URL", "use redis://host:6379 (or rediss:// for TLS), optionally with user:password@ and /db");
  return raw;
}

function parseTokens(env: Env): TokenGrant[] {
  const grants: TokenGrant[] = [];
  if (env.HUB_TOKEN) grants.push({ token: checkedToken("HUB_TOKEN", env.HUB_TOKEN.trim()), scope: null });
  for (const item of (env.HUB_TOKENS ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
    const [token = "", scopeText] = item.split(":", 2);
    checkedToken("HUB_TOKENS", token);
    if (scopeText === undefined) {
      grants.push({ token, scope: null });
      continue;
    }
    const clients = scopeText.split("|").map((s) => s.trim());
    if (clients.length === 0 || clients.some((c) => !ID_PATTERN.test(c))) {
      throw new ConfigError("HUB_TOKENS", "a scope is client ids separated by |, e.g. token:clientA|clientB");
    }
    grants.push({ token, scope: new Set(clients) });
  }
  return grants;
}

function checkedToken(name: string, token: string): string {
  if (token.length < 8) throw new ConfigError(name, "a token needs at least 8 characters");
  if (/[\s:,]/.test(token)) throw new ConfigError(name, "a token may not contain spaces, ':' or ','");
  return token;
}

/** Where the command line finds the hub: --hub/--token win over TABWIRE_URL/TABWIRE_TOKEN (environment or .env). */
export interface CliSettings {
  hubUrl: string;
  token: string | undefined;
}

/** Reads the command line's settings from the environment (after .env). */
export function loadCliSettings(): CliSettings {
  dotenv.config({ quiet: true });
  return { hubUrl: process.env.TABWIRE_URL || "ws://127.0.0.1:8080", token: process.env.TABWIRE_TOKEN || process.env.HUB_TOKEN || undefined };
}
