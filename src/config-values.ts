import type { Capability } from "./capabilities.js";
import { ConfigError } from "./config-error.js";
import type { ClientPolicy } from "./egress-rules.js";
import { ID_PATTERN } from "./target-id.js";

/** An environment-like record of settings. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A token or key that callers present, with the base client ids it is scoped to (null: every client). */
export interface TokenGrant {
  token: string;
  scope: ReadonlySet<string> | null;
  /** What it may do (ACCESS_FILE); null: everything, as every HUB_TOKEN(S) token and agent key. */
  capabilities: ReadonlySet<Capability> | null;
  /** The egress policy of ACCESS_FILE its clients are held to; undefined: none. */
  policy?: ClientPolicy;
}

/** A string setting, with its default when unset or empty. */
export function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === "" ? fallback : value;
}

/** A whole number setting within [min, max], with its default. */
export function integer(env: Env, name: string, range: { fallback: number; min: number; max?: number }): number {
  const { fallback, min, max = Number.MAX_SAFE_INTEGER } = range;
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A true/false setting (also 1/0). */
export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(name, `expected true or false, got "${env[name]}"`);
}

/** A setting that takes one of a few words. */
export function oneOf<T extends string>(env: Env, name: string, words: { choices: readonly T[]; fallback: T }): T {
  const { choices, fallback } = words;
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const found = choices.find((choice) => choice === raw);
  if (found === undefined) throw new ConfigError(name, `expected one of ${choices.join(", ")}, got "${raw}"`);
  return found;
}

/** A comma-separated list setting. */
export function list(env: Env, name: string, normalize: (item: string) => string = (s) => s): ReadonlySet<string> {
  const raw = env[name] ?? "";
  return new Set(
    raw
      .split(",")
      .map((item) => normalize(item.trim()))
      .filter(Boolean),
  );
}

/** A client id setting. */
export function clientId(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback);
  if (!ID_PATTERN.test(value)) throw new ConfigError(name, "use 1-128 characters of A-Z a-z 0-9 . _ -");
  return value;
}

/** A list of `token` (every client) or `token:clientA|clientB` (those clients only), comma-separated. */
export function grants(env: Env, name: string): TokenGrant[] {
  const found: TokenGrant[] = [];
  for (const item of (env[name] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [token = "", scopeText] = item.split(":", 2);
    checkedToken(name, token);
    if (scopeText === undefined) {
      found.push({ token, scope: null, capabilities: null });
      continue;
    }
    const clients = scopeText.split("|").map((s) => s.trim());
    if (clients.length === 0 || clients.some((c) => !ID_PATTERN.test(c))) {
      throw new ConfigError(name, "a scope is client ids separated by |, e.g. token:clientA|clientB");
    }
    found.push({ token, scope: new Set(clients), capabilities: null });
  }
  return found;
}

/** A secret: at least `minLength` characters, none of which separate list items. */
export function checkedToken(name: string, token: string, minLength = 8): string {
  if (token.length < minLength) throw new ConfigError(name, `a token needs at least ${minLength} characters`);
  if (/[\s:,]/.test(token)) throw new ConfigError(name, "a token may not contain spaces, ':' or ','");
  return token;
}

/** Whether a HOST setting names this machine only. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
