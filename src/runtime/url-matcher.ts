import { HubError } from "../errors.js";

/**
 * A URL glob (`*` any run but `/`, `**` any run) or a regular expression written `/source/flags`; a bad expression is
 * INVALID_PARAMS naming the method and the param it came in.
 */
export function urlMatcher(pattern: string, where = { method: "wait.for", path: "/url", regex: true }): (url: string) => boolean {
  const regex = where.regex ? /^\/(.+)\/([dgimsuy]*)$/.exec(pattern) : null;
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
  return globMatcher(pattern);
}

type GlobToken = { literal: string } | { star: "segment" | "any" };

/**
 * A glob matched in time proportional to the URL's length times the pattern's (no backtracking): a caller's pattern
 * can never stall the hub, as a regular expression built from it could.
 */
function globMatcher(pattern: string): (url: string) => boolean {
  const tokens: GlobToken[] = [];
  for (const part of pattern.split(/(\*\*|\*)/)) {
    if (part === "**") tokens.push({ star: "any" });
    else if (part === "*") tokens.push({ star: "segment" });
    else if (part !== "") tokens.push({ literal: part });
  }
  return (url) => {
    // Which positions of the URL the tokens so far can end at.
    let reach = new Uint8Array(url.length + 1);
    reach[0] = 1;
    for (const token of tokens) {
      const next = new Uint8Array(url.length + 1);
      if ("literal" in token) {
        for (let at = 0; at <= url.length; at++) if (reach[at] && url.startsWith(token.literal, at)) next[at + token.literal.length] = 1;
      } else {
        let open = false;
        for (let at = 0; at <= url.length; at++) {
          if (reach[at]) open = true;
          if (open) next[at] = 1;
          if (token.star === "segment" && url[at] === "/") open = false;
        }
      }
      reach = next;
    }
    return reach[url.length] === 1;
  };
}
