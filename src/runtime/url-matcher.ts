import { HubError } from "../errors.js";

/**
 * A URL glob (`*` any run but `/`, `**` any run) or a regular expression written `/source/flags`; a bad expression is
 * INVALID_PARAMS naming the method and the param it came in.
 */
export function urlMatcher(pattern: string, where = { method: "wait.for", path: "/url" }): (url: string) => boolean {
  const regex = /^\/(.+)\/([dgimsuy]*)$/.exec(pattern);
  if (regex) {
    try {
      const compiled = new RegExp(regex[1] as string, regex[2]);
      return (url) => compiled.test(url);
    } catch {
      throw new HubError("INVALID_PARAMS", `invalid params for ${where.method}: ${pattern} is not a valid regular expression`, {
        errors: [{ path: where.path, message: "is not a valid regular expression" }],
      });
    }
  }
  const source = pattern
    .split("**")
    .map((part) => part.split("*").map(escapeRegex).join("[^/]*"))
    .join(".*");
  const glob = new RegExp(`^${source}$`);
  return (url) => glob.test(url);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
