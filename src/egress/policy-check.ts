import type { ClientPolicy } from "../egress-rules.js";
import { HubError } from "../errors.js";
import { normalisePattern } from "../egress-rules.js";

/**
 * Checks what the schema cannot: every host of a policy is a name, an address or `*.name`; INVALID_PARAMS names the
 * first bad one by its path (`/policy/egress/allow/2`). The policy comes back with its hosts normalised.
 */
export function checkedPolicy(policy: ClientPolicy, path: string): ClientPolicy {
  const egress = policy.egress;
  if (!egress) return policy;
  const hosts = (key: "allow" | "block"): string[] | undefined =>
    egress[key]?.map((raw, index) => {
      const host = normalisePattern(raw);
      if (host === null) {
        const where = `${path}/egress/${key}/${index}`;
        const message = "is not a host name, an IP address or *.name";
        throw new HubError("INVALID_PARAMS", `invalid params: ${where} ${message}`, { errors: [{ path: where, message }] });
      }
      return host;
    });
  const allow = hosts("allow");
  const block = hosts("block");
  return { ...policy, egress: { ...egress, ...(allow ? { allow } : {}), ...(block ? { block } : {}) } };
}

/** Checks an upstream proxy URL: http or https with a host; INVALID_PARAMS otherwise (the URL itself never echoed: it may hold a password). */
export function checkedUpstream(raw: string, path: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidUpstream(path);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "" || url.pathname.length > 1 || url.search || url.hash) {
    throw invalidUpstream(path);
  }
  return raw;
}

function invalidUpstream(path: string): HubError {
  const message = "is not a proxy URL: give http://user:pass@host:port (or https://)";
  return new HubError("INVALID_PARAMS", `invalid params: ${path} ${message}`, { errors: [{ path, message }] });
}
