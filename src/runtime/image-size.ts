/** The format and pixel size an image's header declares. */
export interface ImageSize {
  format: "png" | "jpeg" | "webp";
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but are not frames.
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
// Markers that stand alone, without a length: TEM, RST0-7, SOI.
const JPEG_STANDALONE = new Set([0x01, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8]);

/** Reads the format, width and height from a PNG, JPEG or WebP header; throws when the bytes are none of them. */
export function imageSize(bytes: Buffer): ImageSize {
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return pngSize(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  if (bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") return webpSize(bytes);
  throw new Error("not a PNG, JPEG or WebP image");
}

// Headers sit in the first bytes (a JPEG's start of frame after its tables): most images need no more decoded.
const HEADER_BASE64_CHARS = 4096;

/** imageSize of a base64 image, decoding only its first few KB when the header is there. */
export function imageSizeOfBase64(data: string): ImageSize {
  if (data.length > HEADER_BASE64_CHARS) {
    try {
      return imageSize(Buffer.from(data.slice(0, HEADER_BASE64_CHARS), "base64"));
    } catch {
      // The header runs past the prefix: read the whole image below.
    }
  }
  return imageSize(Buffer.from(data, "base64"));
}

function pngSize(bytes: Buffer): ImageSize {
  if (bytes.length < 24 || bytes.toString("latin1", 12, 16) !== "IHDR") throw new Error("PNG without an IHDR chunk first");
  return { format: "png", width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function jpegSize(bytes: Buffer): ImageSize {
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) throw new Error(`JPEG marker expected at byte ${offset}`);
    const marker = bytes[offset + 1] ?? 0;
    // Any number of 0xFF fill bytes may come before a marker.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (JPEG_STANDALONE.has(marker)) {
      offset += 2;
      continue;
    }
    if (JPEG_SOF.has(marker)) {
      if (offset + 9 > bytes.length) break;
      return { format: "jpeg", height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    }
    offset += 2 + bytes.readUInt16BE(offset + 2);
  }
  throw new Error("JPEG without a start-of-frame marker");
}

function webpSize(bytes: Buffer): ImageSize {
  const chunk = bytes.toString("latin1", 12, 16);
  const needed = chunk === "VP8L" ? 25 : 30;
  if (bytes.length < needed) throw new Error(`WebP header cut short (${bytes.length} of ${needed} bytes)`);
  if (chunk === "VP8X") {
    return { format: "webp", width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  }
  if (chunk === "VP8L") {
    if (bytes[20] !== 0x2f) throw new Error("VP8L chunk without its signature byte");
    const bits = bytes.readUInt32LE(21);
    return { format: "webp", width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8 ") {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) throw new Error("VP8 chunk without its start code");
    return { format: "webp", width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  throw new Error(`WebP with an unknown first chunk ${JSON.stringify(chunk)}`);
}
