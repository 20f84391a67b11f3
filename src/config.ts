import { existsSync } from "node:fs";
import { isIP } from "node:net";
import dotenv from "dotenv";
import { readAccessFile } from "./access-file.js";
import { ConfigError } from "./config-error.js";
import { clientSettings, doorSettings, fileSettings, quotaSettings, resumeSettings } from "./limit-settings.js";
import { timelineSettings, type TimelineSettings } from "./timeline-settings.js";
import { traceSettings, type TraceSettings } from "./trace-settings.js";
import {
  boolean,
  checkedToken,
  clientId,
  grants,
  integer,
  isLoopbackHost,
  list,
  oneOf,
  text,
  type Env,
  type TokenGrant,
} from "./config-values.js";
import type { ClientPolicy } from "./egress-rules.js";

export { ConfigError } from "./config-error.js";
export type { TokenGrant } from "./config-values.js";

/** The most a call may ask for with maxSize, and the most MAX_RESULT_BYTES may be (bytes). */
export const RESULT_BYTES_HARD_CAP = 64 * 1024 * 1024;

/** The hub's whole configuration, parsed once from the environment. */
export interface Config {
  host: string;
  port: number;
  apiPort: number | null;
  /** HUB_TOKEN, HUB_TOKENS (every capability), then ACCESS_FILE's tokens with their capabilities and policies. */
  tokens: readonly TokenGrant[];
  /** AUTH_KEY: the single-tenant agent key (any base id), also what the legacy challenge hands out; null when unset. */
  authKey: string | null;
  /** Every agent key: AUTH_KEY (any base id) and AGENT_KEYS, each with the base ids it may register (null: any). */
  agentKeys: readonly TokenGrant[];
  agentLegacyAuth: boolean;
  /** ALLOW_OPEN: a hub with no token on a non-loopback HOST serves every peer (else it refuses to start). */
  allowOpen: boolean;
  allowedOrigins: ReadonlySet<string>;
  /** Host header values a token-less hub answers besides loopback names and HOST (DNS rebinding guard). */
  allowedHosts: ReadonlySet<string>;
  cdpUrl: string | null;
  chromePath: string | null;
  chromeArgs: readonly string[];
  defaultClientId: string;
  /** A client with no tab and no agent this long has its browser context disposed (milliseconds). */
  clientIdleMs: number;
  /** A client with no tab in use, no connection, no agent and no live view this long has its tabs closed and its context disposed; 0: never. */
  clientAbandonMs: number;
  /** An MCP session with no request for this long ends, the tabs it opened closed (MCP_SESSION_IDLE_MS). */
  mcpSessionIdleMs: number;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  maxPayloadBytes: number;
  maxBatch: number;
  maxInflight: number;
  /** Requests a connection (or an HTTP token) may start per second (token bucket, bursts of as many); 0 = no limit. */
  ratePerSec: number;
  maxSessions: number;
  /** WebSocket connections the hub holds at once, and from one peer address. */
  maxConnections: number;
  maxConnectionsPerIp: number;
  /** Failed authentications a minute from one source (an IPv4 address or an IPv6 /64), bursts of as many. */
  authFailuresPerMin: number;
  /** Failed authentications a minute from all sources together. */
  authFailuresGlobalPerMin: number;
  /** Console subscriptions one connection may hold. */
  maxSubscriptions: number;
  /** Tabs one client may have open (its popups count too). */
  maxTabsPerClient: number;
  /** Routes (network.route) one client may hold, its tabs' and its own together. */
  maxRoutesPerClient: number;
  /** /cdp clients of their own (`?ephemeral=true`, contexts a connection makes) one token may hold at once. */
  maxEphemeralClientsPerToken: number;
  /** Bytes of uploaded files a tab may hold (MAX_UPLOAD_BYTES). */
  maxUploadBytes: number;
  /** Where the hub keeps its files (DATA_DIR): downloads, a folder per client. */
  dataDir: string;
  /** Bytes one download, and one client's downloads together (running and kept), may reach (MAX_DOWNLOAD_BYTES). */
  maxDownloadBytes: number;
  /** How long a finished download is kept (DOWNLOAD_TTL_MS). */
  downloadTtlMs: number;
  /** Bytes one persistent client's saved state may take (MAX_PERSISTED_BYTES). */
  maxPersistedBytes: number;
  /** How often a persistent client with tabs is saved, for the cookies and storage its pages set (PERSIST_INTERVAL_MS). */
  persistIntervalMs: number;
  /** How long an agent socket may stay unregistered (milliseconds). */
  agentRegisterTimeoutMs: number;
  /** The default cap on a result's value (bytes); a call may ask for up to RESULT_BYTES_HARD_CAP with maxSize. */
  maxResultBytes: number;
  /** The most pixels one screenshot may have. */
  maxScreenshotPixels: number;
  heartbeatIntervalMs: number;
  /** How long a stopping hub (SIGTERM, SIGINT) lets the calls in flight finish before it cancels them (DRAIN_TIMEOUT_MS). */
  drainTimeoutMs: number;
  sendHighWaterBytes: number;
  slowReaderTimeoutMs: number;
  dialogPolicy: "accept" | "dismiss" | "manual";
  evaluateEnabled: boolean;
  allowUrlSchemes: ReadonlySet<string>;
  logLevel: string;
  logDir: string;
  logMaxBytes: number;
  logMaxFiles: number;
  /** Cluster (Redis): REDIS_URL joins this hub to a cluster of instances; null runs a single hub. */
  redisUrl: string | null;
  /** Dropped /rpc sessions kept for a resume: RESUME_WINDOW_MS (0: off), the buffer's bounds, how many are kept. */
  resume: { windowMs: number; maxMessages: number; maxBytes: number; maxSessions: number };
  /** Cluster: the shared secret every message between instances is signed with (required with REDIS_URL). */
  clusterSecret: string | null;
  /** Cluster: the CA certificate file a rediss:// server is checked against. */
  redisCaFile: string | null;
  /** Cluster: the largest message one instance sends another (bytes); bigger answers are refused at the sender. */
  clusterMaxMessageBytes: number;
  /** This instance's id in the cluster; null: one is made at start. */
  instanceId: string | null;
  /** How long the cluster registry keeps this instance's targets without a refresh (milliseconds). */
  clusterTtlMs: number;
  /** EGRESS_HOSTS (for tests): names the egress proxy maps to an address before DNS, `name=127.0.0.1,...`. */
  egressHosts: ReadonlyMap<string, string>;
  /** OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT and the other standard variables); null: off. */
  traces: TraceSettings | null;
  /** Each tab's timeline (TIMELINE_*): its bounds, and the pictures of actions. */
  timeline: TimelineSettings;
}

const LOG_LEVELS = new Set(["error", "warn", "info", "http", "verbose", "debug", "silly"]);
const CLUSTER_SECRET_MIN_LENGTH = 16;

/** Reads `.env` (when present) into the environment, then parses it; the one reader of process.env. */
export function loadConfig(): Config {
  dotenv.config({ quiet: true });
  return parseConfig(process.env);
}

/** Parses and validates a configuration from an environment-like record; throws ConfigError naming the variable. */
export function parseConfig(env: Env): Config {
  const defaultTimeoutMs = integer(env, "DEFAULT_TIMEOUT_MS", { fallback: 30_000, min: 1 });
  const maxTimeoutMs = integer(env, "MAX_TIMEOUT_MS", { fallback: 600_000, min: 1 });
  if (defaultTimeoutMs > maxTimeoutMs) {
    throw new ConfigError("DEFAULT_TIMEOUT_MS", `must not exceed MAX_TIMEOUT_MS (${maxTimeoutMs})`);
  }
  const apiPort = env.API_PORT ? integer(env, "API_PORT", { fallback: 0, min: 0, max: 65_535 }) : null;
  const maxConnections = integer(env, "MAX_CONNECTIONS", { fallback: 8_192, min: 1 });
  const config: Config = {
    host: text(env, "HOST", "127.0.0.1"),
    port: integer(env, "PORT", { fallback: 8080, min: 0, max: 65_535 }),
    apiPort,
    tokens: Object.freeze(tokens(env)),
    authKey: env.AUTH_KEY ? checkedToken("AUTH_KEY", env.AUTH_KEY.trim()) : null,
    agentKeys: Object.freeze(agentKeys(env)),
    agentLegacyAuth: boolean(env, "AGENT_LEGACY_AUTH", false),
    allowOpen: boolean(env, "ALLOW_OPEN", false),
    allowedOrigins: list(env, "ALLOWED_ORIGINS"),
    allowedHosts: list(env, "ALLOWED_HOSTS", (s) => s.toLowerCase()),
    cdpUrl: cdpUrl(env),
    chromePath: env.CHROME_PATH ? env.CHROME_PATH : null,
    chromeArgs: Object.freeze(env.CHROME_ARGS ? env.CHROME_ARGS.split(/\s+/).filter(Boolean) : []),
    ...clientSettings(env),
    defaultTimeoutMs,
    maxTimeoutMs,
    maxPayloadBytes: integer(env, "MAX_PAYLOAD", { fallback: 32 * 1024 * 1024, min: 1024 }),
    maxBatch: integer(env, "MAX_BATCH", { fallback: 100, min: 1 }),
    maxInflight: integer(env, "MAX_INFLIGHT", { fallback: 256, min: 1 }),
    ratePerSec: integer(env, "RATE_LIMIT_PER_SEC", { fallback: 0, min: 0 }),
    maxSessions: integer(env, "MAX_SESSIONS", { fallback: 64, min: 1 }),
    maxConnections,
    maxConnectionsPerIp: integer(env, "MAX_CONNECTIONS_PER_IP", { fallback: Math.min(4_096, maxConnections), min: 1, max: maxConnections }),
    ...doorSettings(env),
    ...quotaSettings(env),
    ...fileSettings(env),
    maxResultBytes: integer(env, "MAX_RESULT_BYTES", { fallback: 8 * 1024 * 1024, min: 1024, max: RESULT_BYTES_HARD_CAP }),
    maxScreenshotPixels: integer(env, "MAX_SCREENSHOT_PIXELS", { fallback: 32 * 1024 * 1024, min: 1 }),
    heartbeatIntervalMs: integer(env, "HEARTBEAT_INTERVAL_MS", { fallback: 30_000, min: 100 }),
    drainTimeoutMs: integer(env, "DRAIN_TIMEOUT_MS", { fallback: 30_000, min: 0 }),
    sendHighWaterBytes: integer(env, "SEND_HIGH_WATER_BYTES", { fallback: 8 * 1024 * 1024, min: 1024 }),
    slowReaderTimeoutMs: integer(env, "SLOW_READER_TIMEOUT_MS", { fallback: 30_000, min: 100 }),
    dialogPolicy: oneOf(env, "DIALOG_POLICY", { choices: ["dismiss", "accept", "manual"] as const, fallback: "dismiss" }),
    evaluateEnabled: boolean(env, "EVALUATE_ENABLED", true),
    allowUrlSchemes: list(env, "ALLOW_URL_SCHEMES", (s) => s.toLowerCase().replace(/:$/, "")),
    ...logSettings(env),
    resume: resumeSettings(env),
    redisUrl: redisUrl(env),
    clusterSecret: env.CLUSTER_SECRET ? checkedToken("CLUSTER_SECRET", env.CLUSTER_SECRET.trim(), CLUSTER_SECRET_MIN_LENGTH) : null,
    redisCaFile: env.REDIS_CA_FILE ? env.REDIS_CA_FILE : null,
    clusterMaxMessageBytes: integer(env, "CLUSTER_MAX_MESSAGE_BYTES", { fallback: 8 * 1024 * 1024, min: 64 * 1024, max: 30 * 1024 * 1024 }),
    instanceId: env.INSTANCE_ID ? clientId(env, "INSTANCE_ID", "") : null,
    clusterTtlMs: integer(env, "CLUSTER_TTL_MS", { fallback: 10_000, min: 500, max: 3_600_000 }),
    egressHosts: egressHosts(env),
    ...{ traces: otelSettings(env), timeline: timelineSettings(env) },
  };
  checkSecurity(config);
  return Object.freeze(config);
}

/** The standard OpenTelemetry variables the hub reads itself (the SDK reads its other OTEL_* on its own). */
function otelSettings(env: Env): TraceSettings | null {
  return traceSettings({
    OTEL_SDK_DISABLED: env.OTEL_SDK_DISABLED,
    OTEL_TRACES_EXPORTER: env.OTEL_TRACES_EXPORTER,
    OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    OTEL_EXPORTER_OTLP_PROTOCOL: env.OTEL_EXPORTER_OTLP_PROTOCOL,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
    OTEL_SERVICE_NAME: env.OTEL_SERVICE_NAME,
  });
}

/** EGRESS_HOSTS: `name=address` pairs (lower-cased names, IP addresses only), for tests that give loopback servers names. */
function egressHosts(env: Env): ReadonlyMap<string, string> {
  const hosts = new Map<string, string>();
  for (const pair of (env.EGRESS_HOSTS ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name, address, ...rest] = pair.split("=").map((part) => part.trim());
    if (!name || !address || rest.length > 0 || isIP(address) === 0 || !/^[a-z0-9.-]+$/i.test(name)) {
      throw new ConfigError("EGRESS_HOSTS", `"${pair}" is not name=address (an IP address), e.g. allowed.test=127.0.0.1`);
    }
    hosts.set(name.toLowerCase().replace(/\.+$/, ""), address);
  }
  return hosts;
}

/** Where and how much the hub logs. */
function logSettings(env: Env): Pick<Config, "logLevel" | "logDir" | "logMaxBytes" | "logMaxFiles"> {
  return {
    logLevel: logLevel(env),
    logDir: text(env, "LOG_DIR", "logs"),
    logMaxBytes: integer(env, "LOG_MAX_BYTES", { fallback: 10 * 1024 * 1024, min: 1024 }),
    logMaxFiles: integer(env, "LOG_MAX_FILES", { fallback: 5, min: 1 }),
  };
}

/** The combinations a hub refuses to start with: each would leave a door open that the operator did not mean to. */
function checkSecurity(config: Config): void {
  if (config.tokens.length > 0 && config.agentKeys.length === 0) {
    throw new ConfigError(
      "AUTH_KEY / AGENT_KEYS",
      "HUB_TOKEN, HUB_TOKENS or ACCESS_FILE gives tokens, so agents need a key too: set AUTH_KEY (any client id) or AGENT_KEYS=key:clientA|clientB",
    );
  }
  if (config.tokens.length === 0 && !isLoopbackHost(config.host) && !config.allowOpen) {
    throw new ConfigError(
      "HOST",
      `${config.host} is reachable from other machines and no HUB_TOKEN, HUB_TOKENS or ACCESS_FILE is set: set a token, or ALLOW_OPEN=true to serve every peer without one`,
    );
  }
  if (config.redisUrl !== null && config.clusterSecret === null) {
    throw new ConfigError(
      "CLUSTER_SECRET",
      `REDIS_URL is set, so the instances need a shared secret to sign their messages: set CLUSTER_SECRET (${CLUSTER_SECRET_MIN_LENGTH}+ characters, the same on every instance)`,
    );
  }
  if (config.redisCaFile !== null) {
    if (!config.redisUrl?.startsWith("rediss://"))
      throw new ConfigError("REDIS_CA_FILE", "is for a TLS Redis: use it with a rediss:// REDIS_URL");
    if (!existsSync(config.redisCaFile)) throw new ConfigError("REDIS_CA_FILE", `${config.redisCaFile} does not exist`);
  }
}

function tokens(env: Env): TokenGrant[] {
  const found: TokenGrant[] = [];
  if (env.HUB_TOKEN) found.push({ token: checkedToken("HUB_TOKEN", env.HUB_TOKEN.trim()), scope: null, capabilities: null });
  found.push(...grants(env, "HUB_TOKENS"));
  const fromFile = env.ACCESS_FILE ? readAccessFile(env.ACCESS_FILE) : [];
  const seen = new Set(found.map((grant) => grant.token));
  fromFile.forEach((grant, index) => {
    // A token given twice would get the first grant found, whatever the second says.
    if (seen.has(grant.token))
      throw new ConfigError(
        "ACCESS_FILE",
        `tokens[${index}].token is given twice (in ACCESS_FILE, HUB_TOKEN or HUB_TOKENS): make each token unique`,
      );
    seen.add(grant.token);
  });
  return [...found, ...fromFile];
}

/** The egress policies ACCESS_FILE holds a client to: those of the tokens that list it (a request must pass every one). */
export function tokenPolicyOf(config: Pick<Config, "tokens">, clientId: string): ClientPolicy[] {
  return config.tokens.flatMap((grant) => (grant.policy !== undefined && grant.scope?.has(clientId) ? [grant.policy] : []));
}

function agentKeys(env: Env): TokenGrant[] {
  const found: TokenGrant[] = [];
  if (env.AUTH_KEY) found.push({ token: checkedToken("AUTH_KEY", env.AUTH_KEY.trim()), scope: null, capabilities: null });
  return [...found, ...grants(env, "AGENT_KEYS")];
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
  if (!/^rediss?:\/\/[^\s]+$/.test(raw))
    throw new ConfigError("REDIS_URL", "use redis://host:6379 (or rediss:// for TLS), optionally with user:password@ and /db");
  return raw;
}

/** Where the command line finds the hub: --hub/--token win over these. */
export interface CliSettings {
  hubUrl: string;
  /** Whether TABWIRE_URL named the hub (else hubUrl is the address HOST and PORT give the hub, default 127.0.0.1:8080). */
  isHubNamed: boolean;
  token: string | undefined;
}

/** Reads the command line's settings from the environment (after .env). */
export function loadCliSettings(): CliSettings {
  dotenv.config({ quiet: true });
  return parseCliSettings(process.env);
}

/** The hub the command line dials: TABWIRE_URL, else the hub's own HOST and PORT, so a `.env` shared with the hub needs no TABWIRE_URL. */
export function parseCliSettings(env: Env): CliSettings {
  const token = env.TABWIRE_TOKEN || env.HUB_TOKEN || undefined;
  if (env.TABWIRE_URL) return { hubUrl: env.TABWIRE_URL, isHubNamed: true, token };
  const port = integer(env, "PORT", { fallback: 8080, min: 0, max: 65_535 });
  return { hubUrl: `ws://${dialableHost(text(env, "HOST", "127.0.0.1"))}:${port}`, isHubNamed: false, token };
}

// A hub listening on every address is reached on loopback; an IPv6 address goes in brackets in a URL.
function dialableHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
