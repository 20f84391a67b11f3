import { randomBytes } from "node:crypto";

const TOKEN_BYTES = 16;
// randomBytes costs a system call each time (about 5 µs, more than signing a message): drawn 4 KiB at a time.
const POOL_BYTES = 4_096;
let pool = Buffer.alloc(0);
let used = 0;

/** 128 random bits (a CSPRNG's, each byte used once) as 22 base64url characters. */
export function randomToken(): string {
  if (used + TOKEN_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const token = pool.toString("base64url", used, used + TOKEN_BYTES);
  used += TOKEN_BYTES;
  return token;
}
