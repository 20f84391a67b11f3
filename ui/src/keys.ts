// Which keys the live view sends, and how: printable characters are typed, other keys pressed as the hub names them.

/** The key names the hub's press accepts besides characters (docs/reference.md, press). */
const NAMED_KEYS = new Set([
  "Enter",
  "Tab",
  "Backspace",
  "Delete",
  "Escape",
  "Insert",
  "Home",
  "End",
  "PageUp",
  "PageDown",
  "ArrowLeft",
  "ArrowUp",
  "ArrowRight",
  "ArrowDown",
  "CapsLock",
  "ContextMenu",
  ...Array.from({ length: 12 }, (_, index) => `F${index + 1}`),
]);

/** Keys that are never sent: modifiers alone (they go with the key they modify), dead keys, IME processing. */
const IGNORED_KEYS = new Set(["Shift", "Control", "Alt", "Meta", "AltGraph", "OS", "Dead", "Unidentified", "Process"]);

/** What to do with a keydown: type a character, press a key or chord, or leave the event to the browser. */
export type KeyAction = { kind: "type"; text: string } | { kind: "press"; key: string } | { kind: "ignore" };

/** The part of a KeyboardEvent the mapping reads. */
export type KeyInput = Pick<KeyboardEvent, "key" | "ctrlKey" | "altKey" | "metaKey" | "shiftKey" | "isComposing">;

/**
 * Maps a keydown to an action: a single character without Control, Alt or Meta is typed (Shift is in the character
 * already); named keys and chords are pressed as `Control+Shift+ArrowLeft` (modifiers in that order, a letter in capitals:
 * `Control+A`, `Control+Shift+A`). Modifier keys alone, dead keys, IME composition and Shift+Tab (which moves the focus out of the live view)
 * are ignored.
 */
export function keyAction(event: KeyInput): KeyAction {
  const { key } = event;
  const chorded = event.ctrlKey || event.altKey || event.metaKey;
  if (event.isComposing || IGNORED_KEYS.has(key)) return { kind: "ignore" };
  if (key === "Tab" && event.shiftKey && !chorded) return { kind: "ignore" };
  const single = [...key].length === 1;
  if (single && !chorded) return { kind: "type", text: key };
  if (!single && !NAMED_KEYS.has(key)) return { kind: "ignore" };
  return { kind: "press", key: chord(event) };
}

/** The chord of a keydown in the hub's spelling: modifiers joined by `+` before the key. */
function chord(event: KeyInput): string {
  const parts: string[] = [];
  if (event.ctrlKey) parts.push("Control");
  if (event.altKey) parts.push("Alt");
  if (event.metaKey) parts.push("Meta");
  const single = [...event.key].length === 1;
  const letter = single && event.key.toLowerCase() !== event.key.toUpperCase();
  // Shift is part of a typed symbol (`!` is Shift+1 already), so it is named with named keys and letters only.
  if (event.shiftKey && (!single || letter)) parts.push("Shift");
  parts.push(letter ? event.key.toUpperCase() : event.key);
  return parts.join("+");
}
