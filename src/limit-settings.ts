import os from "node:os";
import path from "node:path";
import type { Config } from "./config.js";
import { clientId, integer, text, type Env } from "./config-values.js";

// The limits a hub keeps to, read by config.ts: its doors, clients, quotas, files and resumable sessions.

/** How long an agent socket may stay unregistered, and how many failed authentications a minute the doors take. */
export function doorSettings(env: Env): Pick<Config, "agentRegisterTimeoutMs" | "authFailuresPerMin" | "authFailuresGlobalPerMin"> {
  return {
    agentRegisterTimeoutMs: integer(env, "AGENT_REGISTER_TIMEOUT_MS", { fallback: 10_000, min: 100 }),
    authFailuresPerMin: integer(env, "AUTH_FAILURES_PER_MIN", { fallback: 20, min: 1 }),
    authFailuresGlobalPerMin: integer(env, "AUTH_FAILURES_GLOBAL_PER_MIN", { fallback: 300, min: 1 }),
  };
}

/** Which client keeps Chrome's default context, and how long an idle, an abandoned client or an MCP session lasts. */
export function clientSettings(env: Env): Pick<Config, "defaultClientId" | "clientIdleMs" | "clientAbandonMs" | "mcpSessionIdleMs"> {
  return {
    defaultClientId: clientId(env, "DEFAULT_CLIENT_ID", "local"),
    clientIdleMs: integer(env, "CLIENT_IDLE_MS", { fallback: 300_000, min: 0 }),
    clientAbandonMs: integer(env, "CLIENT_ABANDON_MS", { fallback: 3_600_000, min: 0 }),
    mcpSessionIdleMs: integer(env, "MCP_SESSION_IDLE_MS", { fallback: 1_800_000, min: 1_000 }),
  };
}

/** What one connection, client or token may hold at once: subscriptions, tabs, routes, ephemeral /cdp clients. */
export function quotaSettings(
  env: Env,
): Pick<Config, "maxSubscriptions" | "maxTabsPerClient" | "maxRoutesPerClient" | "maxEphemeralClientsPerToken"> {
  return {
    maxSubscriptions: integer(env, "MAX_SUBSCRIPTIONS", { fallback: 256, min: 1 }),
    maxTabsPerClient: integer(env, "MAX_TABS_PER_CLIENT", { fallback: 100, min: 1 }),
    maxRoutesPerClient: integer(env, "MAX_ROUTES_PER_CLIENT", { fallback: 100, min: 1 }),
    maxEphemeralClientsPerToken: integer(env, "MAX_EPHEMERAL_CLIENTS_PER_TOKEN", { fallback: 16, min: 1 }),
  };
}

/** Where the hub keeps files, and how many: uploads per tab, downloads per client and how long, persistent clients' state. */
export function fileSettings(
  env: Env,
): Pick<Config, "maxUploadBytes" | "dataDir" | "maxDownloadBytes" | "downloadTtlMs" | "maxPersistedBytes" | "persistIntervalMs"> {
  return {
    maxUploadBytes: integer(env, "MAX_UPLOAD_BYTES", { fallback: 256 * 1024 * 1024, min: 1 }),
    dataDir: text(env, "DATA_DIR", path.join(os.tmpdir(), "tabwire-data")),
    maxDownloadBytes: integer(env, "MAX_DOWNLOAD_BYTES", { fallback: 256 * 1024 * 1024, min: 1 }),
    downloadTtlMs: integer(env, "DOWNLOAD_TTL_MS", { fallback: 3_600_000, min: 1_000 }),
    maxPersistedBytes: integer(env, "MAX_PERSISTED_BYTES", { fallback: 10 * 1024 * 1024, min: 1024 }),
    persistIntervalMs: integer(env, "PERSIST_INTERVAL_MS", { fallback: 5_000, min: 100 }),
  };
}

/** How long a dropped /rpc session is kept for session.resume, and what it may keep meanwhile. */
export function resumeSettings(env: Env): Config["resume"] {
  return Object.freeze({
    windowMs: integer(env, "RESUME_WINDOW_MS", { fallback: 60_000, min: 0, max: 3_600_000 }),
    maxMessages: integer(env, "RESUME_BUFFER_MESSAGES", { fallback: 5_000, min: 1 }),
    maxBytes: integer(env, "RESUME_BUFFER_BYTES", { fallback: 2 * 1024 * 1024, min: 1024 }),
    maxSessions: integer(env, "RESUME_MAX_SESSIONS", { fallback: 1_000, min: 1 }),
  });
}
