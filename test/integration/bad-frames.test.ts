import { randomBytes } from "node:crypto";
import net from "node:net";
import { expect } from "chai";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { TestRpcClient } from "../support/rpc-client.js";

const FULL_TOKEN = "bad-frames-full-token";
const ALPHA_TOKEN = "bad-frames-token-alpha";
const AGENT_KEY = "bad-frames-agent-key";
const CLOSE_TIMEOUT_MS = 10_000;

/** A frame as a client sends it: masked (unless `unmasked`), its payload XORed with the mask. */
function frame(first: number, payload: Buffer, options: { unmasked?: boolean; length?: Buffer } = {}): Buffer {
  const length = options.length ?? Buffer.from([payload.length]);
  if (options.unmasked) return Buffer.concat([Buffer.from([first]), length, payload]);
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  length[0] = length[0]! | 0x80;
  return Buffer.concat([Buffer.from([first]), length, mask, masked]);
}

// Frames RFC 6455 forbids, each of which `ws` reads as a protocol error (an "error" event on the server's socket).
const BAD_FRAMES: Readonly<Record<string, Buffer>> = {
  "a text frame without the mask bit (3 bytes)": frame(0x81, Buffer.from("a"), { unmasked: true }),
  "RSV1 set with no extension agreed": frame(0xc1, Buffer.from("{}")),
  "a reserved opcode": frame(0x83, Buffer.alloc(0)),
  "text that is not UTF-8": frame(0x81, Buffer.from([0xc3, 0x28])),
  "a fragmented ping": frame(0x09, Buffer.alloc(0)),
  "a ping of 126 bytes": frame(0x89, Buffer.alloc(126), { length: Buffer.from([126, 0, 126]) }),
  "a close with code 999": frame(0x88, Buffer.from([0x03, 0xe7])),
  "a continuation with nothing to continue": frame(0x80, Buffer.from("x")),
  "a 64-bit length with its top bit set": frame(0x82, Buffer.alloc(0), { length: Buffer.from([127, 0x80, 0, 0, 0, 0, 0, 0, 0]) }),
  "a length past MAX_PAYLOAD": frame(0x82, Buffer.alloc(0), { length: Buffer.from([127, 0, 0, 0, 0, 0x10, 0, 0, 0]) }),
};

/** Upgrades a raw TCP socket at `path` with `token`, then sends `bytes`; resolves when the hub has closed the socket. */
function sendAfterUpgrade(port: number, door: { path: string; token: string }, bytes: Buffer): Promise<string> {
  const { path, token } = door;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let head = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the hub kept the socket at ${path} open ${CLOSE_TIMEOUT_MS} ms after a bad frame`));
    }, CLOSE_TIMEOUT_MS);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(head.split("\r\n")[0] ?? "");
    });
    socket.on("data", (chunk: Buffer) => {
      if (head.includes("\r\n\r\n")) return;
      head += chunk.toString("latin1");
      if (head.includes("\r\n\r\n")) socket.write(bytes);
    });
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
  });
}

describe("bad WebSocket frames on every door: the peer is closed, the hub stays up for everyone (hub in a child process)", function () {
  this.timeout(120_000);
  let hub: ChildHub;

  before(async () => {
    hub = await startChildHub({ HUB_TOKEN: FULL_TOKEN, HUB_TOKENS: `${ALPHA_TOKEN}:alpha`, AUTH_KEY: AGENT_KEY, LOG_LEVEL: "error" });
  });
  after(async () => {
    await hub?.stop();
  });

  const doors: readonly [string, string][] = [
    ["/rpc", ALPHA_TOKEN],
    ["/cdp", ALPHA_TOKEN],
    ["/", AGENT_KEY],
    ["/agent", AGENT_KEY],
  ];
  for (const [path, token] of doors) {
    it(`${path}: each malformed frame closes that socket only; /health answers 200 and /rpc answers after every one`, async () => {
      const control = await TestRpcClient.connect(hub.url, { token: FULL_TOKEN });
      try {
        for (const [what, bytes] of Object.entries(BAD_FRAMES)) {
          const status = await sendAfterUpgrade(hub.port, { path, token }, bytes);
          expect(status, what).to.equal("HTTP/1.1 101 Switching Protocols");
          const health = await fetch(`http://127.0.0.1:${hub.port}/health`);
          expect(health.status, `/health after ${what} on ${path}`).to.equal(200);
          expect(await control.call("ping", {}), `ping after ${what} on ${path}`).to.be.an("object");
        }
      } finally {
        await control.close();
      }
    });
  }
});
