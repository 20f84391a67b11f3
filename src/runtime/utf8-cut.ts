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
