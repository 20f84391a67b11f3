import { Raw } from "./fuzz-rules.js";

// The fuzzers' corpus: the values, snippets, URLs and names frames are made of, and how often each kind of frame comes.
// Kept in rows (prettier-ignore): one item a line would make a table of ten items a screen long.
// prettier-ignore
export const UNICODE = ["\ud800", "\udfff", "\udc00\ud800", "\ufeff", "\u0000", "\u0001\u001f", "\u202e", "\u200f\u200e", "\u2028\u2029", "\u0085", "😀", "👨‍👩‍👧‍👦", "🏳️‍🌈", "\uffff", "\ufffe", "e\u0301\u0301\u0301", "𝕏𝕐", "\u{10ffff}", "日本語", "עברית", "\u00a0", "Z\u0335\u0321\u032a\u0353a"];
// prettier-ignore
export const HUGE_NUMBERS = ["1e308", "-1e308", "1e309", "-1e400", "-0", "0.0", "-0.0", "18446744073709551616", "-9223372036854775809", "9007199254740993", "4.9e-324", "1e-400", "2.2250738585072014e-308", "1E+2", "123456789012345678901234567890", `1${"0".repeat(400)}`, `0.${"0".repeat(350)}1`, "9".repeat(5000)];
// prettier-ignore
export const WRONG_TYPES: unknown[] = [null, true, false, 0, -1, 1.5, 2, "", "2.0 ", "2", "1.0", [], {}, [1], { a: 1 }, "\u0000", new Raw("1e999"), new Raw("-0"), "ping"];
// prettier-ignore
export const GARBAGE = ["", " ", "null", "true", "0", "-0", "1e999", '"str"', "NaN", "Infinity", "undefined", "{'a':1}", '{"a":1,}', "[1,]", "/* */{}", '{"jsonrpc":"2.0","method":"ping","id":1}//', "\u0000", "{", "}", "[", "]", "[[]", '{"a"}', '{"a":}', '"\\x41"', '"\\u12"', '"\\ud800"', "01", "+1", ".5", "1.", "0x10", '{"jsonrpc":"2.0","method":"ping","id":01}'];
// prettier-ignore
export const STRAY = [",", ":", "{", "}", "[", "]", '"', "\\", "\u0000", "x", " ", "\n", "'", "\ufeff", "\ud800"];
// prettier-ignore
export const BAD_UTF8 = [[0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xff], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0xfe, 0xfe, 0xff]];
// prettier-ignore
export const SNIPPETS = ["1 + 1", "() => 2 + 2", "(a, b) => a + b", "(...a) => a.length", "undefined", "null", "NaN", "-0", "10n", "Symbol('x')", "document.body", "[1, 'two', {three: 3}]", "new Map([[1, 2]])", "new Date(0)", "(() => { const o = {}; o.o = o; return o; })()", "throw new TypeError('fuzz')", "Promise.reject(new Error('no'))", "new Promise(() => {})", "await new Promise(r => setTimeout(r, 20))", "console.log('fuzz', 1)", "console.error('x')", "alert('fuzz')", "confirm('?')", "'x'.repeat(100000)", "let a = 1; a", "var v = 2; v", "document.title = 'fuzz'", "location.reload()", "function", ")(", "}{", "debugger"];
// prettier-ignore
export const BLOCKING = ["while (true) {}", "for (;;) {}"];
// prettier-ignore
export const FUNCTIONS = ["(el) => el && el.tagName", "function () { return this === window; }", "() => { throw new Error('x'); }", "(el, a) => a", "async () => 1", "not a function", "}"];
// prettier-ignore
export const SAFE_URLS = ["about:blank", "data:text/html,<p>fuzz</p>", "data:text/html,<button>b</button><script>console.log(1)</script>", "data:text/html,<script>alert(1)</script>", "data:,x", "http://127.0.0.1:1/", "about:blank#x"];
// prettier-ignore
export const REFUSED_URLS = ["file:///etc/passwd", "javascript:alert(1)", "chrome://version", "ftp://127.0.0.1/", "127.0.0.1", "", " http://127.0.0.1:1/", "//127.0.0.1"];
// prettier-ignore
export const NEAR_NAMES = ["", " ", "__proto__", "constructor", "toString", "hasOwnProperty", "rpc.discover", "system.listMethods", "\u0000", "ping\u0000", "PING", "tabs.", ".", "..", "a".repeat(10000), "evaluate ", "tabs..open", "console.*"];
// prettier-ignore
export const HEX = "0123456789ABCDEF";
// prettier-ignore
export const CATEGORIES: [string, number][] = [["request", 20], ["badParams", 16], ["randomMethod", 8], ["envelope", 10], ["brokenJson", 12], ["binary", 7], ["hugeNumbers", 6], ["deepNesting", 1], ["unicode", 8], ["batch", 10], ["huge", 0.03]];
// Calls that cost the browser real work (a capture, a load) are picked less often than the cheap ones.
// prettier-ignore
export const METHOD_WEIGHTS: Record<string, number> = { evaluate: 4, screenshot: 0.5, snapshot: 1, navigate: 1, "tabs.open": 1, "tabs.close": 1, "tabs.activate": 0.5, callOn: 2, content: 2, "console.list": 2, ping: 3, cancel: 2 };
// prettier-ignore
export const TAB_METHODS_TIMEOUT_MS = { min: 50, max: 600 };
