import { targetShape } from "../target-id.js";

// Keyed by the pattern as the OpenRPC document writes it; a contract test fails while a pattern of the document has
// no words here. Each says what the value may be, whichever field uses it (the problem's path names the field).
const WORDS: ReadonlyMap<string, string> = new Map([
  ["^[A-Za-z0-9._-]{1,128}:[A-Za-z0-9._-]{1,128}$", `must be ${targetShape("tabs.list")}`],
  ["^[A-Za-z0-9._-]{1,128}$", "must be a client id: 1 to 128 letters, digits, '.', '_' or '-'"],
  ["^e[1-9][0-9]*$", "must be a ref of a snapshot, as e12"],
  ["^[A-Za-z0-9+/]*={0,2}$", "must be base64: letters, digits, '+' and '/', with at most two '=' at the end"],
  ["^[A-Za-z_][A-Za-z0-9_.]{0,63}$", "must be a method name: a letter or '_', then letters, digits, '_' or '.' (64 at most)"],
  ["^[A-Za-z0-9_-]+$", "may hold letters, digits, '_' and '-' only (as en-GB)"],
  ["^[A-Za-z0-9_+/-]+$", "may hold letters, digits, '_', '+', '/' and '-' only (as Asia/Tokyo)"],
]);

/** What a value that fails `pattern` should be, in words for people; undefined for a pattern with none. */
export function patternWords(pattern: string): string | undefined {
  return WORDS.get(pattern);
}
