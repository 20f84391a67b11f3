import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Capability } from "../capabilities.js";
import type { TokenGrant } from "../config.js";
import type { ClientPolicy } from "../egress-rules.js";

/** What a caller's token grants: the base client ids it reaches (null: all) and what it may do there. */
export interface Grant {
  scope: ReadonlySet<string> | null;
  /** Its capabilities (ACCESS_FILE), which the router checks on every call; null: all of them. */
  capabilities: ReadonlySet<Capability> | null;
  /** The egress policy ACCESS_FILE gives its clients; undefined: none. */
  policy?: ClientPolicy;
  /** Which configured token it is ("token-<n>"), to count its requests by; absent on a hub with no tokens. */
  key?: string;
}

interface StoredGrant extends Grant {
  digest: Buffer;
  key: string;
}

const FULL_ACCESS: Grant = { scope: null, capabilities: null };

/** Who a grant's connections act for, as audit.log names them: the token's id, never the token. */
export function whoOf(grant: Grant): string {
  return grant.key ?? "no token";
}

/** What a connection made with a grant carries of it: its scope, its capabilities, and who it acts for (audit.log). */
export function callerOf(grant: Grant): { scope: Grant["scope"]; capabilities: Grant["capabilities"]; who: string } {
  return { scope: grant.scope, capabilities: grant.capabilities, who: whoOf(grant) };
}

/** Checks presented tokens against the configured ones by constant-time comparison of their digests. */
export class Authenticator {
  #grants: StoredGrant[];

  constructor(tokens: readonly TokenGrant[]) {
    this.#grants = tokens.map((grant, index) => ({
      digest: digest(grant.token),
      scope: grant.scope,
      capabilities: grant.capabilities,
      ...(grant.policy === undefined ? {} : { policy: grant.policy }),
      key: `token-${index}`,
    }));
  }

  /** Whether no token is configured (the hub then accepts loopback peers only). */
  get isOpen(): boolean {
    return this.#grants.length === 0;
  }

  /** The grant of a presented token, or null; with no tokens configured, everything is granted. */
  check(token: string | null): Grant | null {
    if (this.isOpen) return FULL_ACCESS;
    if (token === null) return null;
    // Digests have one length, so timingSafeEqual never throws, and every grant is compared.
    const presented = digest(token);
    let found: Grant | null = null;
    for (const grant of this.#grants) if (timingSafeEqual(presented, grant.digest) && !found) found = grantOf(grant);
    return found;
  }
}

/** The token of a request: `Authorization: Bearer <token>` or `?token=<token>`. */
export function tokenFromRequest(request: IncomingMessage, url: URL): string | null {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    return match?.[1] ?? header.trim();
  }
  return url.searchParams.get("token");
}

/** True when a request names an Origin the operator did not list in ALLOWED_ORIGINS (no Origin: not a browser page). */
export function isForeignOrigin(origin: string | undefined, allowedOrigins: ReadonlySet<string>): origin is string {
  return origin !== undefined && !allowedOrigins.has(origin);
}

/** Whether a peer address is this machine. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

function grantOf({ scope, capabilities, policy, key }: StoredGrant): Grant {
  return policy === undefined ? { scope, capabilities, key } : { scope, capabilities, policy, key };
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}
