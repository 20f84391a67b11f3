import { HubError } from "../errors.js";
import { regexWorker } from "./regex-worker.js";

/**
 * wait.for's URL pattern: a glob (`*` any run but `/`, `**` any run) or a regular expression written `/source/flags`,
 * tested on a thread of its own within a time limit (regex-worker.ts); a bad expression is INVALID_PARAMS.
 */
export function urlMatcher(pattern: string): (url: string) => Promise<boolean> {
  const regex = /^\/(.+)\/([dgimsuy]*)$/.exec(pattern);
  if (!regex) {
    const matches = globMatcher(pattern, { method: "wait.for", path: "/url" });
    return (url) => Promise.resolve(matches(url));
  }
  const [, source, flags] = regex as unknown as [string, string, string];
  try {
    // Compiling takes time in proportion to the expression, whatever it is; only searching can run away.
    new RegExp(source, flags);
  } catch {
    throw new HubError("INVALID_PARAMS", `invalid params for wait.for: ${pattern} is not a valid regular expression`, {
      errors: [{ path: "/url", message: "is not a valid regular expression" }],
    });
  }
  regexWorker.warm();
  return (url) => regexWorker.test(source, flags, url);
}

/** The most wildcards a glob may have: each costs a pass over the URL (Chrome's own glob matcher stops at 16 deep). */
export const MAX_GLOB_WILDCARDS = 32;

type GlobToken = { literal: string; skip: Int32Array } | { star: "segment" | "any" };

/**
 * A glob matched in time proportional to the URL's length times its wildcards, never backtracking: a caller's pattern
 * can never stall the hub, as a regular expression built from it could. A glob with more than MAX_GLOB_WILDCARDS
 * wildcards is INVALID_PARAMS naming the method and the param it came in.
 */
export function globMatcher(pattern: string, where: { method: string; path: string }): (url: string) => boolean {
  const tokens: GlobToken[] = [];
  let wildcards = 0;
  for (const part of pattern.split(/(\*+)/)) {
    if (part === "") continue;
    if (!part.startsWith("*")) tokens.push({ literal: part, skip: prefixTable(part) });
    else {
      wildcards++;
      tokens.push({ star: part.length > 1 ? "any" : "segment" });
    }
  }
  if (wildcards > MAX_GLOB_WILDCARDS) {
    const why = `has ${wildcards} wildcards; at most ${MAX_GLOB_WILDCARDS}`;
    throw new HubError("INVALID_PARAMS", `invalid params for ${where.method}: the glob ${why}`, {
      errors: [{ path: where.path, message: why }],
    });
  }
  return (url) => {
    // Which positions of the URL the tokens so far can end at.
    let reach = new Uint8Array(url.length + 1);
    reach[0] = 1;
    for (const token of tokens) {
      const next = new Uint8Array(url.length + 1);
      if ("literal" in token) {
        const length = token.literal.length;
        forEachOccurrence(url, token, (at) => {
          if (reach[at]) next[at + length] = 1;
        });
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

/** Knuth-Morris-Pratt: for each prefix of `word`, the length of its longest proper prefix that is also its suffix. */
function prefixTable(word: string): Int32Array {
  const table = new Int32Array(word.length);
  for (let at = 1, matched = 0; at < word.length; at++) {
    while (matched > 0 && word[at] !== word[matched]) matched = table[matched - 1] as number;
    if (word[at] === word[matched]) matched++;
    table[at] = matched;
  }
  return table;
}

/** Calls `found` with the start of every occurrence of the word in `text`, overlapping ones too, in linear time. */
function forEachOccurrence(
  text: string,
  { literal: word, skip }: { literal: string; skip: Int32Array },
  found: (at: number) => void,
): void {
  for (let at = 0, matched = 0; at < text.length; at++) {
    while (matched > 0 && text[at] !== word[matched]) matched = skip[matched - 1] as number;
    if (text[at] === word[matched]) matched++;
    if (matched === word.length) {
      found(at - word.length + 1);
      matched = skip[matched - 1] as number;
    }
  }
}
