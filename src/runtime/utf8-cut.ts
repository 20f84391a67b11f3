/** Page-side source of a function giving a string's UTF-8 byte length without encoding it (for scripts the hub runs in a page). */
export const UTF8_LENGTH_IN_PAGE = `(text) => {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 && i + 1 < text.length ? (i++, 4) : 3;
  }
  return bytes;
}`;

/** Text cut to a number of UTF-8 bytes: what is kept, the full text's byte length, and whether anything was cut. */
export interface Utf8Cut {
  text: string;
  bytes: number;
  cut: boolean;
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes at the last whole character that fits (never a broken one). */
export function cutUtf8(text: string, maxBytes: number): Utf8Cut {
  // Measured without copying: only a text that must be cut is encoded.
  const length = Buffer.byteLength(text, "utf8");
  if (length <= maxBytes) return { text, bytes: length, cut: false };
  const bytes = Buffer.from(text, "utf8");
  let end = maxBytes;
  // A byte 10xxxxxx continues a character, so the cut moves back to the start of the character it would split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString("utf8"), bytes: bytes.length, cut: true };
}

/**
 * `text` in memory of its own. V8 keeps a slice or a split piece of a string as a view into the whole: a 32 KB head of
 * a 1 MB message would hold on to the megabyte for as long as the buffer keeps it.
 */
export function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
