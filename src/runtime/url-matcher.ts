import { HubError } from "../errors.js";
import { regexWorker, type RegexCaller } from "./regex-worker.js";

/**
 * wait.for's URL pattern: a glob (`*` any run but `/`, `**` any run) or a regular expression written `/source/flags`,
 * tested for the caller's call on a thread of its own, in turn with other clients, within a time limit
 * (regex-worker.ts); a bad expression is INVALID_PARAMS.
 */
export function urlMatcher(pattern: string, caller: RegexCaller): (url: string) => Promise<boolean> {
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
  return regexWorker.matcher(source, flags, caller);
}

/** The most wildcards a glob may have: each costs a pass over the URL (Chrome's own glob matcher stops at 16 deep). */
export const MAX_GLOB_WILDCARDS = 16;

type GlobToken = { literal: Uint16Array; skip: Int32Array } | { star: "segment" | "any" };

const SLASH = 0x2f;

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
    if (!part.startsWith("*")) {
      const literal = codesOf(part);
      tokens.push({ literal, skip: prefixTable(literal) });
    } else {
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
    const text = codesOf(url);
    // Which positions of the URL the tokens so far can end at, and the next token's.
    let reach: Reach = { now: new Uint8Array(text.length + 1), next: new Uint8Array(text.length + 1) };
    reach.now[0] = 1;
    for (const token of tokens) {
      reach.next.fill(0);
      const reached = "literal" in token ? afterLiteral(text, token, reach) : afterStar(text, token.star === "segment", reach);
      if (!reached) return false;
      reach = { now: reach.next, next: reach.now };
    }
    return reach.now[text.length] === 1;
  };
}

function codesOf(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let at = 0; at < text.length; at++) codes[at] = text.charCodeAt(at);
  return codes;
}

/** The positions the tokens so far can end at, and those of the next token, marked by it. */
interface Reach {
  now: Uint8Array;
  next: Uint8Array;
}

/** Marks where the literal ends after a reachable position (Knuth-Morris-Pratt, linear); whether it marked any. */
function afterLiteral(text: Uint16Array, { literal, skip }: { literal: Uint16Array; skip: Int32Array }, { now, next }: Reach): boolean {
  let reached = false;
  for (let at = 0, matched = 0; at < text.length; at++) {
    while (matched > 0 && text[at] !== literal[matched]) matched = skip[matched - 1] as number;
    if (text[at] === literal[matched]) matched++;
    if (matched === literal.length) {
      if (now[at + 1 - matched]) {
        next[at + 1] = 1;
        reached = true;
      }
      matched = skip[matched - 1] as number;
    }
  }
  return reached;
}

/** Marks every position a star stretches to from a reachable one (`*` not past a slash); whether it marked any. */
function afterStar(text: Uint16Array, segment: boolean, { now, next }: Reach): boolean {
  let from = now.indexOf(1);
  if (from === -1) return false;
  if (!segment) {
    next.fill(1, from);
    return true;
  }
  // From each reachable position to the next slash (included: a `*` ends before it), then on from the next reachable one.
  while (from !== -1) {
    const slash = text.indexOf(SLASH, from);
    const end = slash === -1 ? text.length : slash;
    next.fill(1, from, end + 1);
    from = now.indexOf(1, end + 1);
  }
  return true;
}

/** Knuth-Morris-Pratt: for each prefix of `word`, the length of its longest proper prefix that is also its suffix. */
function prefixTable(word: Uint16Array): Int32Array {
  const table = new Int32Array(word.length);
  for (let at = 1, matched = 0; at < word.length; at++) {
    while (matched > 0 && word[at] !== word[matched]) matched = table[matched - 1] as number;
    if (word[at] === word[matched]) matched++;
    table[at] = matched;
  }
  return table;
}
