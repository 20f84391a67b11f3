import { readFileSync, statSync } from "node:fs";
import { CAPABILITIES, isCapability, type Capability } from "./capabilities.js";
import { ConfigError } from "./config-error.js";
import type { TokenGrant } from "./config-values.js";
import { normalisePattern, type ClientPolicy, type EgressRules } from "./egress-rules.js";
import { ID_PATTERN } from "./target-id.js";

const SETTING = "ACCESS_FILE";
const TOKEN_MIN_LENGTH = 8;
const SCHEMES = ["http", "https", "ws", "wss"];
const TOKEN_KEYS = new Set(["token", "clients", "capabilities", "policy"]);
const POLICY_KEYS = new Set(["egress", "upstreamProxy"]);
const EGRESS_KEYS = new Set(["allow", "block", "ports", "schemes", "blockPrivateNetworks"]);

/** A problem at a place in the file: `where` is a path such as `tokens[2].capabilities[0]`. */
class Problem extends Error {
  constructor(where: string, problem: string) {
    super(where === "" ? problem : `${where}: ${problem}`);
  }
}

/**
 * The tokens of ACCESS_FILE, with their clients, capabilities and policies; a ConfigError naming the place when the
 * file is missing, readable or writable by others than its owner, or not as docs/operations.md describes it.
 */
export function readAccessFile(file: string): TokenGrant[] {
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new ConfigError(SETTING, `${file} is not a file`);
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8);
      throw new ConfigError(SETTING, `${file} holds tokens and is open to group or others (mode ${mode}): chmod 600 ${file}`);
    }
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(SETTING, `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(SETTING, `${file} is not valid JSON (${(error as Error).message})`);
  }
  try {
    return accessGrants(value);
  } catch (error) {
    if (error instanceof Problem) throw new ConfigError(SETTING, `${file}: ${error.message}`);
    throw error;
  }
}

/** The grants of a parsed ACCESS_FILE; throws a Problem naming the place of the first mistake. */
function accessGrants(value: unknown): TokenGrant[] {
  const file = record(value, "", 'the file must be an object {"tokens": [...], "policies": {...}}');
  knownKeys(file, "", new Set(["tokens", "policies"]));
  const policies = new Map<string, ClientPolicy>();
  if (file.policies !== undefined) {
    const named = record(file.policies, "policies", "must be an object of named policies");
    for (const [name, policy] of Object.entries(named)) policies.set(name, clientPolicy(policy, `policies[${JSON.stringify(name)}]`));
  }
  if (!Array.isArray(file.tokens)) throw new Problem("tokens", "must be a list of tokens");
  return file.tokens.map((entry, index) => tokenGrant(entry, `tokens[${index}]`, policies));
}

function tokenGrant(value: unknown, where: string, policies: ReadonlyMap<string, ClientPolicy>): TokenGrant {
  const entry = record(value, where, 'must be an object {"token": "...", "clients": [...], "capabilities": [...], "policy": "..."}');
  knownKeys(entry, where, TOKEN_KEYS);
  const { token } = entry;
  if (typeof token !== "string" || token.length < TOKEN_MIN_LENGTH || /\s/.test(token))
    throw new Problem(`${where}.token`, `must be a string of at least ${TOKEN_MIN_LENGTH} characters without spaces`);
  const scope = entry.clients === undefined ? null : clientList(entry.clients, `${where}.clients`);
  const capabilities = entry.capabilities === undefined ? null : capabilityList(entry.capabilities, `${where}.capabilities`);
  const grant: TokenGrant = { token, scope, capabilities };
  if (entry.policy === undefined) return grant;
  const policy = typeof entry.policy === "string" ? policies.get(entry.policy) : undefined;
  if (policy === undefined) {
    const known = [...policies.keys()].join(", ") || "none";
    throw new Problem(`${where}.policy`, `${JSON.stringify(entry.policy)} is not a policy of "policies" (${known})`);
  }
  if (scope === null)
    throw new Problem(where, 'a token with a policy must list its clients ("clients": [...]): the policy holds the clients it names');
  return { ...grant, policy };
}

function clientList(value: unknown, where: string): ReadonlySet<string> {
  if (!Array.isArray(value) || value.length === 0) throw new Problem(where, "must be a list of client ids; leave it out for every client");
  value.forEach((id, index) => {
    if (typeof id !== "string" || !ID_PATTERN.test(id))
      throw new Problem(`${where}[${index}]`, "a client id is 1-128 characters of A-Z a-z 0-9 . _ -");
  });
  return new Set(value as string[]);
}

function capabilityList(value: unknown, where: string): ReadonlySet<Capability> {
  if (!Array.isArray(value) || value.length === 0)
    throw new Problem(where, `must be a list of capabilities (${CAPABILITIES.join(", ")}); leave it out for all`);
  value.forEach((word, index) => {
    if (!isCapability(word))
      throw new Problem(`${where}[${index}]`, `${JSON.stringify(word)} is not a capability (${CAPABILITIES.join(", ")})`);
  });
  return new Set(value as Capability[]);
}

function clientPolicy(value: unknown, where: string): ClientPolicy {
  const policy = record(value, where, 'must be an object {"egress": {...}, "upstreamProxy": "http://..."}');
  knownKeys(policy, where, POLICY_KEYS);
  const found: ClientPolicy = {};
  if (policy.egress !== undefined) found.egress = egressRules(policy.egress, `${where}.egress`);
  if (policy.upstreamProxy !== undefined) found.upstreamProxy = proxyUrl(policy.upstreamProxy, `${where}.upstreamProxy`);
  return Object.freeze(found);
}

function egressRules(value: unknown, where: string): EgressRules {
  const egress = record(value, where, 'must be an object {"allow": [...], "block": [...], "ports": [...], "schemes": [...]}');
  knownKeys(egress, where, EGRESS_KEYS);
  const rules: EgressRules = {};
  if (egress.allow !== undefined) rules.allow = listOf(egress.allow, `${where}.allow`, hostPattern);
  if (egress.block !== undefined) rules.block = listOf(egress.block, `${where}.block`, hostPattern);
  if (egress.ports !== undefined) rules.ports = listOf(egress.ports, `${where}.ports`, port);
  if (egress.schemes !== undefined) rules.schemes = listOf(egress.schemes, `${where}.schemes`, scheme);
  if (egress.blockPrivateNetworks !== undefined) {
    if (typeof egress.blockPrivateNetworks !== "boolean") throw new Problem(`${where}.blockPrivateNetworks`, "must be true or false");
    rules.blockPrivateNetworks = egress.blockPrivateNetworks;
  }
  return Object.freeze(rules);
}

function listOf<T>(value: unknown, where: string, item: (value: unknown, where: string) => T): readonly T[] {
  if (!Array.isArray(value)) throw new Problem(where, "must be a list");
  return Object.freeze(value.map((each, index) => item(each, `${where}[${index}]`)));
}

// Read as clients.configure reads a policy's hosts, so the two doors take the same ones (IPv6 addresses too).
function hostPattern(value: unknown, where: string): string {
  const host = typeof value === "string" ? normalisePattern(value) : null;
  if (host === null)
    throw new Problem(where, `${JSON.stringify(value)} is not a host name, an IP address or *.name (e.g. shop.example, *.shop.example)`);
  return host;
}

function port(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 65_535)
    throw new Problem(where, `${JSON.stringify(value)} is not a port (a whole number from 1 to 65535)`);
  return value;
}

function scheme(value: unknown, where: string): string {
  if (typeof value !== "string" || !SCHEMES.includes(value))
    throw new Problem(where, `${JSON.stringify(value)} is not a scheme (${SCHEMES.join(", ")})`);
  return value;
}

// The URL carries credentials: a mistake is described, never echoed.
function proxyUrl(value: unknown, where: string): string {
  let url: URL | null = null;
  try {
    url = typeof value === "string" ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "")
    throw new Problem(where, "must be an http(s) URL such as http://user:pass@host:3128");
  return value as string;
}

function record(value: unknown, where: string, problem: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Problem(where, problem);
  return value as Record<string, unknown>;
}

function knownKeys(value: Record<string, unknown>, where: string, known: ReadonlySet<string>): void {
  for (const key of Object.keys(value))
    if (!known.has(key)) throw new Problem(where, `${JSON.stringify(key)} is not a field here (${[...known].join(", ")})`);
}
