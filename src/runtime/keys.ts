/** A key as CDP's Input.dispatchKeyEvent sends it: the DOM `key`, its `code`, its Windows key code and its text. */
export interface KeyDefinition {
  key: string;
  code: string;
  keyCode: number;
  /** What the key types, for keys that type something (no text: a rawKeyDown). */
  text?: string;
  /** 1 for the left modifier keys (DOM KeyboardEvent.location). */
  location?: number;
}

/** CDP's modifier bits (Input.dispatchKeyEvent and dispatchMouseEvent `modifiers`). */
export const MODIFIER_BITS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 } as const;
export type Modifier = keyof typeof MODIFIER_BITS;

const NAMED: [key: string, code: string, keyCode: number, text?: string][] = [
  ["Enter", "Enter", 13, "\r"],
  ["Tab", "Tab", 9, "\t"],
  ["Backspace", "Backspace", 8],
  ["Delete", "Delete", 46],
  ["Escape", "Escape", 27],
  ["Insert", "Insert", 45],
  ["Home", "Home", 36],
  ["End", "End", 35],
  ["PageUp", "PageUp", 33],
  ["PageDown", "PageDown", 34],
  ["ArrowLeft", "ArrowLeft", 37],
  ["ArrowUp", "ArrowUp", 38],
  ["ArrowRight", "ArrowRight", 39],
  ["ArrowDown", "ArrowDown", 40],
  ["CapsLock", "CapsLock", 20],
  ["ContextMenu", "ContextMenu", 93],
  [" ", "Space", 32, " "],
];
const MODIFIER_KEYS: [key: Modifier, code: string, keyCode: number][] = [
  ["Shift", "ShiftLeft", 16],
  ["Control", "ControlLeft", 17],
  ["Alt", "AltLeft", 18],
  ["Meta", "MetaLeft", 91],
];
// The US layout's punctuation: the character, its shifted character, the key's code and Windows key code.
const PUNCTUATION: [plain: string, shifted: string, code: string, keyCode: number][] = [
  ["-", "_", "Minus", 189],
  ["=", "+", "Equal", 187],
  ["[", "{", "BracketLeft", 219],
  ["]", "}", "BracketRight", 221],
  ["\\", "|", "Backslash", 220],
  [";", ":", "Semicolon", 186],
  ["'", '"', "Quote", 222],
  [",", "<", "Comma", 188],
  [".", ">", "Period", 190],
  ["/", "?", "Slash", 191],
  ["`", "~", "Backquote", 192],
];
const SHIFTED_DIGITS = ")!@#$%^&*(";

/** Every key the hub can press by name, and every character it can type with a key, on a US layout. */
const KEYS: ReadonlyMap<string, KeyDefinition> = (() => {
  const keys = new Map<string, KeyDefinition>();
  const add = (definition: KeyDefinition): void => void keys.set(definition.key, definition);
  for (const [key, code, keyCode, text] of NAMED) add(text === undefined ? { key, code, keyCode } : { key, code, keyCode, text });
  for (const [key, code, keyCode] of MODIFIER_KEYS) add({ key, code, keyCode, location: 1 });
  for (let i = 0; i < 26; i++) {
    const upper = String.fromCharCode(65 + i);
    const lower = upper.toLowerCase();
    add({ key: lower, code: `Key${upper}`, keyCode: 65 + i, text: lower });
    add({ key: upper, code: `Key${upper}`, keyCode: 65 + i, text: upper });
  }
  for (let digit = 0; digit < 10; digit++) {
    add({ key: String(digit), code: `Digit${digit}`, keyCode: 48 + digit, text: String(digit) });
    const shifted = SHIFTED_DIGITS[digit] as string;
    add({ key: shifted, code: `Digit${digit}`, keyCode: 48 + digit, text: shifted });
  }
  for (const [plain, shifted, code, keyCode] of PUNCTUATION) {
    add({ key: plain, code, keyCode, text: plain });
    add({ key: shifted, code, keyCode, text: shifted });
  }
  for (let n = 1; n <= 12; n++) add({ key: `F${n}`, code: `F${n}`, keyCode: 111 + n });
  return keys;
})();

/** The key a name or character stands for (`Enter`, `a`, `A`, `%`, `ArrowDown`), or undefined for none. */
export function keyOf(name: string): KeyDefinition | undefined {
  return KEYS.get(name);
}

/** A key with its modifiers, as `press` reads `Control+Shift+ArrowLeft`; "+" itself is a key (`Control++`). */
export interface KeyChord {
  modifiers: Modifier[];
  key: KeyDefinition;
}

/** Reads a chord, or returns why it is not one (for INVALID_PARAMS). */
export function parseChord(chord: string): KeyChord | string {
  const parts = chord === "+" ? ["+"] : chord.endsWith("++") ? [...chord.slice(0, -2).split("+"), "+"] : chord.split("+");
  const name = parts.pop() ?? "";
  const key = keyOf(name);
  if (!key) return `${JSON.stringify(name)} is not a key the hub knows (a character of a US keyboard, or a name like Enter, ArrowDown, F5)`;
  const modifiers: Modifier[] = [];
  for (const part of parts) {
    if (!(part in MODIFIER_BITS)) return `${JSON.stringify(part)} is not a modifier (Alt, Control, Meta, Shift)`;
    modifiers.push(part as Modifier);
  }
  return { modifiers, key };
}

/** The CDP bitmask of modifiers. */
export function modifierBits(modifiers: readonly Modifier[]): number {
  return modifiers.reduce((bits, modifier) => bits | MODIFIER_BITS[modifier], 0);
}
