import { expect } from "chai";
import { imageSize } from "../../../src/runtime/image-size.js";

const ascii = (text: string): number[] => [...Buffer.from(text, "latin1")];
const u16be = (n: number): number[] => [n >> 8, n & 0xff];
const u16le = (n: number): number[] => [n & 0xff, n >> 8];
const u24le = (n: number): number[] => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
const u32be = (n: number): number[] => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const u32le = (n: number): number[] => u32be(n).reverse();

function png(width: number, height: number): Buffer {
  return Buffer.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...u32be(13),
    ...ascii("IHDR"),
    ...u32be(width),
    ...u32be(height),
    8,
    6,
    0,
    0,
    0,
  ]);
}

function jpeg(sof: number, width: number, height: number): Buffer {
  const app0 = [0xff, 0xe0, ...u16be(16), ...ascii("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const dht = [0xff, 0xc4, ...u16be(5), 0, 0, 0];
  const frame = [0xff, sof, ...u16be(17), 8, ...u16be(height), ...u16be(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  // A fill byte before the frame marker, as encoders may write.
  return Buffer.from([0xff, 0xd8, ...app0, ...dht, 0xff, ...frame, 0xff, 0xd9]);
}

function webp(chunk: string, payload: number[]): Buffer {
  const body = [...ascii("WEBP"), ...ascii(chunk), ...u32le(payload.length), ...payload];
  return Buffer.from([...ascii("RIFF"), ...u32le(body.length), ...body]);
}

describe("imageSize (test support)", () => {
  it("reads a PNG's IHDR", () => {
    expect(imageSize(png(780, 493))).to.deep.equal({ format: "png", width: 780, height: 493 });
  });

  it("reads a baseline (SOF0) JPEG past APP0, a DHT segment and a fill byte", () => {
    expect(imageSize(jpeg(0xc0, 640, 5000))).to.deep.equal({ format: "jpeg", width: 640, height: 5000 });
  });

  it("reads a progressive (SOF2) JPEG", () => {
    expect(imageSize(jpeg(0xc2, 1, 2))).to.deep.equal({ format: "jpeg", width: 1, height: 2 });
  });

  it("reads an extended WebP (VP8X canvas size, stored minus one)", () => {
    const payload = [0x20, 0, 0, 0, ...u24le(779), ...u24le(492)];
    expect(imageSize(webp("VP8X", payload))).to.deep.equal({ format: "webp", width: 780, height: 493 });
  });

  it("reads a lossless WebP (VP8L, 14-bit sizes minus one)", () => {
    const bits = (300 - 1) | ((200 - 1) << 14);
    expect(imageSize(webp("VP8L", [0x2f, ...u32le(bits), 0]))).to.deep.equal({ format: "webp", width: 300, height: 200 });
  });

  it("reads a lossy WebP (VP8 key frame, scale bits ignored)", () => {
    const payload = [0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a, ...u16le(0x4000 | 400), ...u16le(0xc000 | 120), 0, 0];
    expect(imageSize(webp("VP8 ", payload))).to.deep.equal({ format: "webp", width: 400, height: 120 });
  });

  it("refuses bytes that are no image, and a JPEG without a frame", () => {
    expect(() => imageSize(Buffer.from("GIF89a......"))).to.throw(/not a PNG, JPEG or WebP/);
    expect(() => imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).to.throw(/start-of-frame/);
  });
});
