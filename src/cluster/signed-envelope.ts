import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import { randomToken } from "./random-token.js";

// The first word of every signed message, the version of this format: "tw1 <ms> <nonce> <to> <signature>\n<body>".
const VERSION = "tw1";
// A real header is about 100 characters (plus a target's length); anything longer was made up.
const MAX_HEADER_CHARS = 512;
const TIMESTAMP = /^\d{1,15}$/;
const NONCE = /^[A-Za-z0-9_-]{22}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
// Instance ids, "*" and "@<clientId>:<tabId>": printable, no spaces, so the header splits on them.
const RECIPIENT = /^[\x21-\x7e]{1,400}$/;

/** A message whose signature checked out: when and for whom it was signed, and its body (not parsed yet). */
export interface OpenedMessage {
  timestampMs: number;
  nonce: string;
  /** An instance id, "*" for every instance (the events channel), or "@<target>" for whoever owns the target. */
  to: string;
  body: string;
}

/** Why a message could not be opened: no signature at all, a broken header, or a signature that does not match. */
export type EnvelopeFault = "unsigned" | "malformed" | "forged";

/**
 * Signs and checks cluster messages with HMAC-SHA256 under CLUSTER_SECRET, over the header (time, a random nonce,
 * the recipient) and the body, so a message can neither be made up, altered, nor sent to another instance.
 */
export class MessageSigner {
  #key: KeyObject;

  constructor(secret: string) {
    this.#key = createSecretKey(Buffer.from(secret, "utf8"));
  }

  /** The wire text of `body` for `to`, signed at `nowMs`. */
  seal(body: string, to: string, nowMs = Date.now()): string {
    if (!RECIPIENT.test(to))
      throw new Error(`a cluster message's recipient must be printable ASCII without spaces, not ${JSON.stringify(to.slice(0, 100))}`);
    const head = `${VERSION} ${nowMs} ${randomToken()} ${to}`;
    return `${head} ${this.#digest(head, body).toString("base64url")}\n${body}`;
  }

  /** The signed parts of a wire text, or why it cannot be trusted; the body is not parsed. */
  open(text: string): OpenedMessage | EnvelopeFault {
    if (!text.startsWith(`${VERSION} `)) return "unsigned";
    // Looked for in the first characters only: a made-up message may be megabytes without a newline.
    const end = text.slice(0, MAX_HEADER_CHARS).indexOf("\n");
    if (end < 0) return "malformed";
    const parts = text.slice(0, end).split(" ");
    if (parts.length !== 5) return "malformed";
    const [, timestamp = "", nonce = "", to = "", signature = ""] = parts;
    if (!TIMESTAMP.test(timestamp) || !NONCE.test(nonce) || !RECIPIENT.test(to) || !SIGNATURE.test(signature)) return "malformed";
    const body = text.slice(end + 1);
    const expected = this.#digest(`${VERSION} ${timestamp} ${nonce} ${to}`, body);
    const given = Buffer.from(signature, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "forged";
    return { timestampMs: Number(timestamp), nonce, to, body };
  }

  #digest(head: string, body: string): Buffer {
    return createHmac("sha256", this.#key).update(head).update("\n").update(body).digest();
  }
}
